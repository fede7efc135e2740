import { compileTemplate, defineNode, toAnswer, type Passage, type Question } from "@citeflow/core";
import { EXTRACTIVE_ID, extractiveAnswer, openAIChat, type ChatModel } from "@citeflow/models";
import { z } from "zod";

export const DEFAULT_ANSWER_PROMPT =
  "Answer the question using only the titles and abstracts below. Cite every statement with the numbers of the papers it rests on, like [1] or [2][3]. If the papers do not answer the question, say so.\n\n" +
  "{{#each passages}}[{{@number}}] {{title}}\n{{text}}\n\n{{/each}}Question: {{question.text}}\nAnswer:";

const chats = new Map<string, ChatModel>();
function chatModel(model: string, baseUrl: string, apiKeyEnv: string, timeoutMs: number, retries: number): ChatModel {
  const key = JSON.stringify([model, baseUrl, apiKeyEnv, timeoutMs, retries]);
  let m = chats.get(key);
  if (!m) {
    const apiKey = process.env[apiKeyEnv];
    m = openAIChat({ model, ...(baseUrl ? { baseURL: baseUrl } : {}), ...(apiKey ? { apiKey } : {}), timeoutMs, maxRetries: retries });
    chats.set(key, m);
  }
  return m;
}

export const generateAnswer = defineNode({
  type: "generate.answer",
  version: 1,
  title: "Answer with citations",
  family: "generate",
  description: "Writes an answer citing the given passages: with an LLM (any OpenAI-compatible server), or offline with the extractive baseline.",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]", description: "The passages it may cite, in prompt order" } },
  outputs: { answer: { type: "Answer", description: "Text, citation map and any citations outside the given passages" } },
  params: z.object({
    generator: z
      .enum(["auto", "extractive", "llm"])
      .default("auto")
      .describe("auto: the chat model when one is configured ($CITEFLOW_CHAT_MODEL or the model param), else the extractive baseline; extractive: the offline baseline (picks and cites passage sentences); llm: a chat model"),
    model: z.string().default("").describe("Chat model id; empty: $CITEFLOW_CHAT_MODEL"),
    baseUrl: z.string().default("").describe("OpenAI-compatible server; empty: $OPENAI_BASE_URL"),
    apiKeyEnv: z.string().default("OPENAI_API_KEY").describe("Environment variable holding the API key (the key itself never goes in a graph)"),
    prompt: z.string().default(DEFAULT_ANSWER_PROMPT).describe("Prompt template over question and passages; {{@number}} is the citation number"),
    system: z.string().default("You are a careful scientific assistant. You only state what the given papers support, and you cite them.").describe("System message"),
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().positive().default(512),
    seed: z.number().int().optional().describe("Sampling seed, where the server supports it"),
    timeoutMs: z.number().int().positive().default(120_000),
    retries: z.number().int().nonnegative().default(3),
    citationBase: z.union([z.literal(0), z.literal(1)]).default(1).describe("1: [1] is the first passage; 0: [0] is (OpenScholar)"),
    sentences: z.number().int().positive().default(3).describe("extractive: sentences in the answer"),
  }),
  // Which generator "auto" picks depends on the environment: it is part of the cache key.
  fingerprint: (p) => (p.generator === "auto" ? { model: p.model || process.env.CITEFLOW_CHAT_MODEL || null, baseUrl: p.baseUrl || process.env.OPENAI_BASE_URL || null } : null),
  async run(inputs, p, ctx) {
    const question = inputs.question as Question;
    const passages = inputs.passages as Passage[];
    const generator = p.generator === "auto" ? (p.model || process.env.CITEFLOW_CHAT_MODEL ? "llm" : "extractive") : p.generator;
    if (generator === "extractive") {
      const text = await ctx.span("extractive", async (s) => {
        s.set("model", EXTRACTIVE_ID);
        return extractiveAnswer(question.text, passages, { sentences: p.sentences, base: p.citationBase });
      });
      return { answer: toAnswer(text, passages, { base: p.citationBase }) };
    }
    const model = p.model || process.env.CITEFLOW_CHAT_MODEL;
    if (!model) throw new Error(`generate.answer: no chat model: set the "model" param or $CITEFLOW_CHAT_MODEL (or use generator "extractive" offline)`);
    const chat = chatModel(model, p.baseUrl, p.apiKeyEnv, p.timeoutMs, p.retries);
    // {{@number}} counts from 1; with 0-based citations the prompt numbers passages from 0.
    const user = compileTemplate(p.citationBase === 0 ? p.prompt.replaceAll("{{@number}}", "{{@index}}") : p.prompt).render({ question, passages });
    const messages = [
      { role: "system" as const, content: p.system },
      { role: "user" as const, content: user },
    ];
    const result = await ctx.span("model", async (s) => {
      s.set("model", chat.id);
      s.set("baseURL", chat.baseURL);
      s.set("messages", messages);
      const r = await chat.chat(messages, { temperature: p.temperature, maxTokens: p.maxTokens, ...(p.seed !== undefined ? { seed: p.seed } : {}), signal: ctx.signal });
      s.set("response", r.text);
      if (r.usage) s.set("usage", r.usage);
      s.set("servedBy", r.model);
      return r;
    });
    return { answer: toAnswer(result.text.trim(), passages, { base: p.citationBase }) };
  },
});
