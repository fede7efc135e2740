import type { NodeContext } from "@citeflow/core";
import { statSync } from "node:fs";
import { basename } from "node:path";
import {
  findGguf,
  firstGguf,
  hubGguf,
  loadLocalChat,
  LOCAL_CHAT_VERSION,
  modelsDirsFromEnv,
  openAIChat,
  type ChatMessage,
  type ChatModel,
  type ChatOptions,
  type ChatResult,
  type LocalChatOptions,
} from "@citeflow/models";
import { z } from "zod";
import { requireEndpoint, sameEndpoint } from "./endpoints.js";

/** Params every node that calls a chat model shares. */
export const llmParams = {
  model: z
    .string()
    .default("")
    .describe(
      'Chat model: a .gguf file (path, or name in the models folders) runs in-process; another name is a server\'s model; "none": no model; empty: $CITEFLOW_CHAT_MODEL, else the first .gguf in the models folders',
    ),
  baseUrl: z
    .string()
    .default("")
    .describe("OpenAI-compatible server; empty: $OPENAI_BASE_URL. Another server runs only when you allowed it ($CITEFLOW_ALLOWED_ENDPOINTS, --allow-endpoint, the editor's dialog), and gets no key"),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().positive().default(512),
  seed: z.number().int().optional().describe("Sampling seed, where the server supports it"),
  repeatPenalty: z.number().min(1).max(2).default(1.1).describe("In-process models: penalty on tokens repeated in the last 64, against greedy loops (1 = off); servers ignore it"),
  timeoutMs: z.number().int().positive().default(120_000),
  retries: z.number().int().nonnegative().default(3),
};

export type LlmParams = { model: string; baseUrl: string; temperature: number; maxTokens: number; seed?: number | undefined; repeatPenalty: number; timeoutMs: number; retries: number };

const chats = new Map<string, ChatModel>();

/** Which chat model a node's params and the environment select, before anything is loaded. */
export type ChatChoice = { kind: "local"; path: string } | { kind: "hub"; uri: string } | { kind: "http"; model: string; baseUrl: string } | { kind: "none"; reason: string };

/**
 * The one rule for choosing a chat model. The model param, else $CITEFLOW_CHAT_MODEL: "none" →
 * no model; a .gguf path, or the name of a .gguf file in the models folders → in-process;
 * `hf:<user>/<repo>/<file>.gguf` → in-process, from the Hugging Face hub into the models home;
 * any other name → that model on the OpenAI-compatible server ($OPENAI_BASE_URL or baseUrl).
 * Nothing named → the first .gguf in the models folders; none there → no model.
 */
export function chooseChat(p: Pick<LlmParams, "model" | "baseUrl">): ChatChoice {
  const name = (p.model || process.env.CITEFLOW_CHAT_MODEL || "").trim();
  if (name === "none") return { kind: "none", reason: `the chat model is set to "none"` };
  if (name) {
    if (/^(hf|huggingface):/.test(name)) return { kind: "hub", uri: name };
    const path = findGguf(name, modelsDirsFromEnv(), /\.gguf$/i.test(name) || name.includes("/"));
    if (path) return { kind: "local", path };
    return { kind: "http", model: name, baseUrl: p.baseUrl || process.env.OPENAI_BASE_URL || "" };
  }
  const first = firstGguf();
  if (first) return { kind: "local", path: first };
  return { kind: "none", reason: `no chat model is configured ($CITEFLOW_CHAT_MODEL) and no .gguf file is in the models folders (${modelsDirsFromEnv().join(", ")}): run \`npm run models\`` };
}

/** The configured chat model, or undefined when the choice is none. Loaded once per process. */
export async function configuredChat(p: LlmParams): Promise<ChatModel | undefined> {
  const c = chooseChat(p);
  if (c.kind === "none") return undefined;
  if (c.kind === "local") return loadLocalChat(c.path, localChatOptions());
  if (c.kind === "hub") return loadLocalChat(await hubGguf(c.uri, process.env.CITEFLOW_ALLOW_DOWNLOADS === "1"), localChatOptions());
  // The key ($OPENAI_API_KEY) goes to the server the user configured ($OPENAI_BASE_URL, or the
  // SDK's default when unset) and nowhere else; a server named by the graph needs consent.
  const configured = process.env.OPENAI_BASE_URL ?? "";
  const toConfigured = !p.baseUrl || (configured !== "" && sameEndpoint(p.baseUrl, configured));
  if (!toConfigured) requireEndpoint(p.baseUrl, "params.baseUrl");
  const key = JSON.stringify([c.model, c.baseUrl, toConfigured, p.timeoutMs, p.retries]);
  let m = chats.get(key);
  if (!m) {
    const apiKey = toConfigured ? process.env.OPENAI_API_KEY : undefined;
    m = openAIChat({ model: c.model, ...(c.baseUrl ? { baseURL: c.baseUrl } : {}), apiKey: apiKey || "no-key", timeoutMs: p.timeoutMs, maxRetries: p.retries });
    chats.set(key, m);
  }
  return m;
}

/** In-process model settings from the environment: $CITEFLOW_LLM_SEQUENCES, $CITEFLOW_LLM_CONTEXT. */
function localChatOptions(): LocalChatOptions {
  const n = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  const sequences = n(process.env.CITEFLOW_LLM_SEQUENCES);
  const contextSize = n(process.env.CITEFLOW_LLM_CONTEXT);
  return { ...(sequences ? { sequences } : {}), ...(contextSize ? { contextSize } : {}) };
}

/** Which chat model a node would use is part of its cache key: a local model by file name and size. */
export function llmFingerprint(p: LlmParams): unknown {
  const c = chooseChat(p);
  if (c.kind === "none") return null;
  if (c.kind === "local") return { local: basename(c.path), bytes: statSync(c.path).size, format: LOCAL_CHAT_VERSION };
  if (c.kind === "hub") return { hub: c.uri, format: LOCAL_CHAT_VERSION };
  return { model: c.model, baseUrl: c.baseUrl || null };
}

/** A choice in words, for the demo and logs. */
export function describeChat(c: ChatChoice): string {
  switch (c.kind) {
    case "local":
      return `${basename(c.path)}, running in this process (llama.cpp, CPU)`;
    case "hub":
      return `${c.uri} from the Hugging Face hub, running in this process (llama.cpp, CPU)`;
    case "http":
      return `chat model ${c.model} at ${c.baseUrl || "the OpenAI API"}`;
    case "none":
      return `the extractive baseline, which is not a language model: ${c.reason}`;
  }
}

/** Why a node runs without a chat model, in words for its log and the demo. */
export function noChatReason(p: LlmParams): string {
  const c = chooseChat(p);
  return c.kind === "none" ? c.reason : "";
}

/** What a call asks beyond the messages: a JSON schema, or citation markers limited to the passages. */
export type ChatConstraint = Pick<ChatOptions, "jsonSchema" | "citations">;

/**
 * One chat call, traced as a `model` span: messages, response, usage, model and server (never
 * the key). Text streams into the node's progress (pieces so far, the text so far), at most four
 * times a second.
 */
export function callChat(ctx: NodeContext, chat: ChatModel, messages: ChatMessage[], p: LlmParams, name = "model", constraint: ChatConstraint = {}): Promise<ChatResult> {
  return ctx.span(name, async (s) => {
    s.set("model", chat.id);
    s.set("baseURL", chat.baseURL);
    s.set("messages", messages);
    if (chat.constrains && constraint.jsonSchema) s.set("jsonSchema", constraint.jsonSchema);
    if (chat.constrains && constraint.citations) s.set("citations", `only [${constraint.citations.base}]…[${constraint.citations.base + constraint.citations.count - 1}]`);
    let last = 0;
    let chunks = 0;
    const r = await chat.chat(messages, {
      temperature: p.temperature,
      maxTokens: p.maxTokens,
      ...(p.seed !== undefined ? { seed: p.seed } : {}),
      repeatPenalty: p.repeatPenalty,
      signal: ctx.signal,
      ...constraint,
      onText: (_chunk, soFar) => {
        chunks++;
        const now = Date.now();
        if (now - last < 250) return;
        last = now;
        ctx.progress(chunks, p.maxTokens, soFar);
      },
    });
    s.set("response", r.text);
    if (r.usage) s.set("usage", r.usage);
    s.set("servedBy", r.model);
    if (r.finishReason) s.set("finishReason", r.finishReason);
    return r;
  });
}
