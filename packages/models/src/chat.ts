import type OpenAI from "openai";
import { openAIClient } from "./openai-client.js";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens not read again: the in-process model reuses what its sequence holds; a server reports its prompt cache's hits. */
  cachedPromptTokens?: number;
  /** Milliseconds from the call to the first generated token (in-process models). */
  timeToFirstTokenMs?: number;
  /** Generated tokens per second after the first (in-process models). */
  tokensPerSecond?: number;
}

export interface ChatResult {
  text: string;
  /** The model the server says answered. */
  model: string;
  /** The parsed JSON, when the call gave `jsonSchema` and the model was held to it by a grammar. */
  structured?: unknown;
  usage?: ChatUsage;
  finishReason?: string;
  /** With `choices`, in-process models: each choice's log-probability after the prompt when the answer is held to the choices (natural log; where they part, the model's probabilities renormalised over the tokens they go on with), in the order given. */
  choiceLogprobs?: number[];
}

/** A grammar an in-process model's answer is held to: GBNF, llama.cpp's grammar format. */
export interface Grammar {
  gbnf: string;
  /** At most how many tokens an answer it allows takes: a call gets at least this many, so a held answer closes. */
  tokenBound?: number;
  /** Keep the compiled grammar under this name for the calls that follow (none: a grammar made for one call's inputs). */
  key?: string;
}

/** Texts scored as continuations of a prompt: each text's tokens, each with its text and its natural log-probability there. */
export interface Continuations {
  scored: Array<Array<{ text: string; logprob: number }>>;
  /** The prompt's tokens. */
  promptTokens: number;
}

export interface ChatOptions {
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  signal?: AbortSignal;
  /** Called with each piece of text as it is generated (in-process models stream; servers do not here). */
  onText?: (chunk: string, soFar: string) => void;
  /** A JSON schema the answer must follow. In-process models are held to it by a grammar and return `structured`; servers ignore it. */
  jsonSchema?: Record<string, unknown>;
  /** In-process models: penalty on tokens repeated in the last 64 (llama.cpp's repeat penalty; default 1.1, 1 = off). Servers ignore it. */
  repeatPenalty?: number;
  /** A grammar the answer must follow (what it allows is the caller's: models follow grammars, nodes decide them). In-process models are held to it; servers ignore it. */
  grammar?: Grammar;
  /** The answer is one of these texts (with `jsonSchema`: JSON answers of it). In-process models score each by its probability after the prompt and answer the likeliest (`choiceLogprobs`), in place of generating; servers ignore it. */
  choices?: string[];
}

/** A server's prompt-cache hits (OpenAI and vLLM report them as prompt_tokens_details.cached_tokens), when it reports a count. */
function serverCached(u: { prompt_tokens_details?: { cached_tokens?: unknown } }): { cachedPromptTokens?: number } {
  const n = u.prompt_tokens_details?.cached_tokens;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? { cachedPromptTokens: n } : {};
}

/** Messages in, text and usage out. */
export interface ChatModel {
  readonly id: string;
  /** Server address, without any key, or "in-process" for a local model: safe to record. */
  readonly baseURL: string;
  /** Whether `jsonSchema` and `grammar` are enforced (in-process models). */
  readonly constrains: boolean;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  /** In-process models: how likely each text is, token by token, as the answer's beginning after these messages. */
  continuations?(messages: ChatMessage[], texts: string[]): Promise<Continuations>;
}

export interface OpenAIChatOptions {
  model: string;
  /** The server; default OpenAI's API. Not read from the environment: nodes' services pass the configured one. */
  baseURL?: string;
  /** The key sent to `baseURL` (none: "no-key"); the services give it only to the server it was configured for (`keyFor`). Never recorded. */
  apiKey?: string;
  /** Headers sent with every request ($OPENAI_CUSTOM_HEADERS, given like the key to its server only). Never recorded. */
  headers?: Readonly<Record<string, string>>;
  /** Per-request timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, with backoff honouring Retry-After (default 3). */
  maxRetries?: number;
}

/** Chat completions from any OpenAI-compatible server: OpenAI, vLLM, Ollama, llama.cpp, LM Studio. */
export function openAIChat(o: OpenAIChatOptions): ChatModel {
  const { client, shown } = openAIClient({ baseURL: o.baseURL, apiKey: o.apiKey, headers: o.headers, timeoutMs: o.timeoutMs ?? 120_000, maxRetries: o.maxRetries ?? 3 });
  const where = `chat model ${o.model} at ${shown}`;
  return {
    id: o.model,
    baseURL: shown,
    constrains: false,
    async chat(messages, opts = {}) {
      let res: OpenAI.Chat.Completions.ChatCompletion;
      try {
        res = await client.chat.completions.create(
          {
            model: o.model,
            messages,
            ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
            ...(opts.maxTokens !== undefined ? { max_tokens: opts.maxTokens } : {}),
            ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          },
          opts.signal ? { signal: opts.signal } : undefined,
        );
      } catch (e) {
        throw new Error(`${where} failed: ${(e as Error).message}`, { cause: e });
      }
      const choice = Array.isArray(res?.choices) ? res.choices[0] : undefined;
      const text = choice?.message?.content;
      if (typeof text !== "string") throw new Error(`${where}: the response has no message content (${JSON.stringify(res).slice(0, 200)})`);
      const u = res.usage;
      return {
        text,
        model: typeof res.model === "string" ? res.model : o.model,
        ...(u ? { usage: { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, totalTokens: u.total_tokens, ...serverCached(u) } } : {}),
        ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
      };
    },
  };
}
