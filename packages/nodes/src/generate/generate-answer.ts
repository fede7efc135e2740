import { compileTemplate, defineNode, NO_ANSWER, QUOTE_OPENING, splitSentences, toAnswer, type NodeContext, type Passage, type Question, type Services } from "@citeflow/core";
import { EXTRACTIVE_ID, extractiveAnswer, type ChatMessage, type ChatModel } from "@citeflow/models";
import { answerGrammar, describeRule, quotable, QUOTES_MAX, refusalOrCite, type AnswerRule } from "./answer-grammar.js";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatFor, llmParams, noChatReason, systemParam } from "../shared/llm.js";

/**
 * The least probability of the refusal at which the answer refuses. Chosen on 60 dev claims with
 * Citeflow's adapter (bench/README.md): its probability (0.70–0.82) did not tell the claims whose
 * passages hold no evidence from the others, and the gold answers' choice to cite or refuse was
 * matched best (54 of 60) by a threshold above the highest it reached (0.815).
 */
export const NO_ANSWER_AT = 0.82;

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "generate.answer";
export const generateAnswer = defineNode({
  type: TYPE,
  version: 3,
  title: "Answer with citations",
  family: "generate",
  description:
    "Writes an answer citing the given passages: with a chat model (in-process GGUF or any OpenAI-compatible server), or with the extractive baseline when chosen or when no model can be found.",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]", description: "The passages it may cite, in prompt order" } },
  outputs: { answer: { type: "Answer", description: "Text, citation map and any citations outside the given passages" } },
  params: z.object({
    generator: z
      .enum(["auto", "extractive", "llm"])
      .default("auto")
      .describe(
        "auto: the chat model (the model param, $CITEFLOW_CHAT_MODEL, else the first .gguf in the models folders), else the extractive baseline; extractive: the baseline (picks and cites passage sentences, not a language model); llm: a chat model, an error without one",
      ),
    ...llmParams,
    prompt: promptParam("core-gpt.answer.v1", "Prompt over question and passages; {{@number}} is the citation number"),
    system: systemParam,
    citationBase: z
      .union([z.literal(0), z.literal(1)])
      .default(1)
      .describe("1: [1] is the first passage; 0: [0] is (OpenScholar)"),
    sentences: z.number().int().positive().default(3).describe("extractive: sentences in the answer"),
    constrainCitations: z
      .boolean()
      .default(true)
      .describe("In-process model: a grammar allows only the markers of the given passages ([1]…[k]), so none is hallucinated. A server's model is not constrained."),
    requireCitation: z
      .boolean()
      .default(true)
      .describe("In-process model, with constrainCitations: the grammar also makes the answer cite at least one passage within its first line's first 300 characters, unless it is noAnswer"),
    quote: z
      .boolean()
      .default(true)
      .describe(
        `In-process model, with constrainCitations: the answer is quoteOpening, then 1 to ${QUOTES_MAX} sentences of the passages word for word, each with its passage's marker before its full stop ("X raises Y [2]."), unless it is noAnswer; so every statement is a passage's own words and cites it. false: the model words the answer (held to cite by requireCitation)`,
      ),
    quoteOpening: z.string().default(QUOTE_OPENING).describe("With quote: the words before the quotes (Citeflow's adapter was trained on answers that open so); empty: none"),
    noAnswer: z
      .string()
      .default(NO_ANSWER)
      .describe("With requireCitation or quote: the one answer that cites nothing, word for word (what the prompt asks for when the papers do not answer the question); empty: every answer cites"),
    noAnswerAt: z
      .number()
      .gt(0)
      .lte(1)
      .nullable()
      .default(NO_ANSWER_AT)
      .describe(
        "In-process model, with requireCitation (or quote) and noAnswer: the answer is noAnswer when the model's probability of writing it, word for word, is at least this, else it cites; null: the model chooses as it writes (greedily). The probability is traced on the call (uncitedProbability). Default chosen on dev claims for Citeflow's adapter",
      ),
  }),
  // Which generator "auto" picks depends on the environment, and the prompt on its file: both are part of the cache key.
  fingerprint: (p, s) => ({ llm: p.generator === "extractive" ? null : s.chatIdentity(p, TYPE), prompt: s.promptIdentity(p.prompt) }),
  async run(inputs, p, ctx) {
    const { question, passages } = inputs;
    const chat = p.generator === "extractive" ? undefined : await chatFor(ctx, p, TYPE);
    if (p.generator === "llm" && !chat) throw new Error(`generate.answer: no chat model: ${noChatReason(ctx.services, p, TYPE)} (or use generator "extractive")`);
    if (!chat) {
      if (p.generator === "auto") ctx.log("warn", `no language model: the answer is the extractive baseline (sentences picked from the passages), because ${noChatReason(ctx.services, p, TYPE)}`);
      const text = await ctx.span("extractive", async (s) => {
        s.set("model", EXTRACTIVE_ID);
        return extractiveAnswer(question.text, passages, { sentences: p.sentences, base: p.citationBase });
      });
      return { answer: toAnswer(text, passages, { base: p.citationBase }) };
    }
    const sentences = passages.map((x) => splitSentences(x.text));
    const quote = p.quote && sentences.some((ss) => quotable(ss).length > 0);
    if (p.quote && p.constrainCitations && passages.length > 0 && !quote) ctx.log("warn", "quote: no passage has a sentence to quote, so the model words the answer");
    const messages = answerMessages(ctx.services, question, passages, p);
    const answerOf = (text: string) => ({ answer: toAnswer(text.trim(), passages, { base: p.citationBase }) });
    if (!p.constrainCitations || passages.length === 0) return answerOf((await callChat(ctx, chat, messages, p)).text);
    const rule: AnswerRule = {
      count: passages.length,
      base: p.citationBase,
      required: p.requireCitation,
      ...(quote ? { quote: { sentences, opening: p.quoteOpening } } : {}),
      ...(p.noAnswer ? { uncited: p.noAnswer } : {}),
    };
    const held = (r: AnswerRule) => ({ grammar: answerGrammar(r), held: describeRule(r) });
    // Refusing at a threshold (in-process models, which score continuations): the refusal when the model's probability
    // of writing it is at least noAnswerAt; else an answer that cites without taking the refusal's way.
    if ((rule.required || rule.quote) && rule.uncited && p.noAnswerAt !== null && chat.continuations) {
      const way = await refusalSpan(ctx, chat, messages, rule.uncited, p.noAnswerAt);
      if (way.refuse) return answerOf(rule.uncited);
      const { uncited: _refusal, ...cite } = rule;
      // A quoting answer cannot take the refusal's way: its statements are the passages' sentences.
      return answerOf((await callChat(ctx, chat, messages, p, "model", held(quote ? cite : { ...cite, avoid: way.avoid }))).text);
    }
    return answerOf((await callChat(ctx, chat, messages, p, "model", held(rule))).text);
  },
});

/** The refusal's way, traced as a `refusal` span: the answer is the refusal when its probability is at least `at`. */
function refusalSpan(ctx: NodeContext, chat: ChatModel, messages: ChatMessage[], refusal: string, at: number): Promise<{ refuse: boolean; avoid: string }> {
  return ctx.span("refusal", async (s) => {
    s.set("model", chat.id);
    s.set("baseURL", chat.baseURL);
    s.set("messages", messages);
    s.set("noAnswer", refusal);
    s.set("noAnswerAt", at);
    const way = await refusalOrCite(chat, messages, refusal);
    s.set("probability", way.probability);
    s.set("usage", { promptTokens: way.promptTokens, completionTokens: 0, totalTokens: way.promptTokens });
    const refuse = way.probability >= at;
    if (refuse) s.set("response", refusal);
    return { refuse, avoid: way.avoid };
  });
}

/**
 * The messages generate.answer sends a chat model for these inputs and params: the system prompt,
 * then the prompt file rendered over the question and the numbered passages. Dataset exports use
 * it to show a training example exactly what the generator saw.
 */
export function answerMessages(services: Pick<Services, "prompt">, question: Question, passages: Passage[], p: { prompt: string; system: string; citationBase: 0 | 1 }): ChatMessage[] {
  // {{@number}} counts from 1; with 0-based citations the prompt numbers passages from 0.
  const template = services.prompt(p.prompt);
  const user = compileTemplate(p.citationBase === 0 ? template.replaceAll("{{@number}}", "{{@index}}") : template).render({ question, passages });
  return [
    { role: "system", content: p.system },
    { role: "user", content: user },
  ];
}
