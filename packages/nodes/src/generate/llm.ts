import type { NodeContext } from "@citeflow/core";
import { openAIChat, type ChatMessage, type ChatModel, type ChatResult } from "@citeflow/models";
import { z } from "zod";

/** Params every node that calls a chat model shares. */
export const llmParams = {
  model: z.string().default("").describe("Chat model id; empty: $CITEFLOW_CHAT_MODEL"),
  baseUrl: z.string().default("").describe("OpenAI-compatible server; empty: $OPENAI_BASE_URL"),
  apiKeyEnv: z.string().default("OPENAI_API_KEY").describe("Environment variable holding the API key (the key itself never goes in a graph)"),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().positive().default(512),
  seed: z.number().int().optional().describe("Sampling seed, where the server supports it"),
  timeoutMs: z.number().int().positive().default(120_000),
  retries: z.number().int().nonnegative().default(3),
};

export type LlmParams = { model: string; baseUrl: string; apiKeyEnv: string; temperature: number; maxTokens: number; seed?: number | undefined; timeoutMs: number; retries: number };

const chats = new Map<string, ChatModel>();

/** The configured chat model, or undefined when none is (no model param, no $CITEFLOW_CHAT_MODEL). */
export function configuredChat(p: LlmParams): ChatModel | undefined {
  const model = p.model || process.env.CITEFLOW_CHAT_MODEL;
  if (!model) return undefined;
  const baseUrl = p.baseUrl || process.env.OPENAI_BASE_URL || "";
  const key = JSON.stringify([model, baseUrl, p.apiKeyEnv, p.timeoutMs, p.retries]);
  let m = chats.get(key);
  if (!m) {
    const apiKey = process.env[p.apiKeyEnv];
    m = openAIChat({ model, ...(baseUrl ? { baseURL: baseUrl } : {}), ...(apiKey ? { apiKey } : {}), timeoutMs: p.timeoutMs, maxRetries: p.retries });
    chats.set(key, m);
  }
  return m;
}

/** Whether a chat model is configured is part of a node's cache key: configuring one re-runs it. */
export function llmFingerprint(p: LlmParams): unknown {
  return { model: p.model || process.env.CITEFLOW_CHAT_MODEL || null, baseUrl: p.baseUrl || process.env.OPENAI_BASE_URL || null };
}

/** One chat call, traced as a `model` span: messages, response, usage, model and server (never the key). */
export function callChat(ctx: NodeContext, chat: ChatModel, messages: ChatMessage[], p: LlmParams, name = "model"): Promise<ChatResult> {
  return ctx.span(name, async (s) => {
    s.set("model", chat.id);
    s.set("baseURL", chat.baseURL);
    s.set("messages", messages);
    const r = await chat.chat(messages, { temperature: p.temperature, maxTokens: p.maxTokens, ...(p.seed !== undefined ? { seed: p.seed } : {}), signal: ctx.signal });
    s.set("response", r.text);
    if (r.usage) s.set("usage", r.usage);
    s.set("servedBy", r.model);
    return r;
  });
}
