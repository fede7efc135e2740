import type OpenAI from "openai";
import { openAIClient } from "./openai-client.js";
import type { Embedder } from "./interfaces.js";

export interface OpenAIEmbedderOptions {
  model: string;
  /** The server; default OpenAI's API. Not read from the environment: an edge passes $OPENAI_BASE_URL. */
  baseURL?: string;
  /** The key sent to `baseURL` (none: "no-key"). Not read from the environment. Never written to traces or logs. */
  apiKey?: string;
  /** Headers sent with every request (none from the environment). Never written to traces or logs. */
  headers?: Readonly<Record<string, string>>;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per-request timeout in ms. Default 60 000. */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, with exponential backoff. Default 3. */
  maxRetries?: number;
  /** Normalise vectors to unit length (so dot = cosine). Default true. */
  normalize?: boolean;
}

/** Embeddings from any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio). */
export function openAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const { client, shown } = openAIClient({ baseURL: options.baseURL, apiKey: options.apiKey, headers: options.headers, timeoutMs: options.timeoutMs ?? 60_000, maxRetries: options.maxRetries ?? 3 });
  const where = `${options.model} at ${shown}`;
  const batchSize = options.batchSize ?? 64;
  const normalize = options.normalize ?? true;
  return {
    id: options.model,
    async embed(texts, o) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        let res: OpenAI.Embeddings.CreateEmbeddingResponse;
        try {
          res = await client.embeddings.create({ model: options.model, input: batch, encoding_format: "float" }, o?.signal ? { signal: o.signal } : undefined);
        } catch (e) {
          // The SDK's messages carry status and body, never the key; say which server failed.
          throw new Error(`embeddings from ${where} failed: ${(e as Error).message}`, { cause: e });
        }
        const data = Array.isArray(res?.data) ? [...res.data].sort((a, b) => a.index - b.index) : undefined;
        if (!data || data.length !== batch.length || data.some((d) => !Array.isArray(d.embedding) || d.embedding.some((x) => typeof x !== "number")))
          throw new Error(`embeddings from ${where}: malformed response (expected ${batch.length} embeddings, got ${JSON.stringify(res).slice(0, 200)})`);
        for (const d of data) out.push(normalize ? unit(d.embedding) : d.embedding);
      }
      return out;
    },
  };
}

function unit(v: number[]): number[] {
  const n = Math.hypot(...v);
  return n === 0 ? v : v.map((x) => x / n);
}
