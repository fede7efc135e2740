import { keyFor, withoutCredentials } from "@citeflow/core";
import OpenAI from "openai";
import { serverFetch } from "./server-fetch.js";

/**
 * The OpenAI SDK client behind every OpenAI-compatible model (chat, embeddings), so both follow
 * the same rules: the server is `baseURL`, else $OPENAI_BASE_URL; $OPENAI_API_KEY goes only to
 * $OPENAI_BASE_URL (`keyFor`), a key passed in goes where its caller sends it; a server URL that
 * carries a user name and password is refused by name (requests cannot send them in the URL, and
 * the SDK would only say "Connection error"). Every request goes through the server's shared
 * budget (`serverFetch`: 429 holds, concurrency, tokens per minute). `shown`: the server as it may be printed.
 */
export function openAIClient(o: { baseURL?: string | undefined; apiKey?: string | undefined; timeoutMs: number; maxRetries: number }): { client: OpenAI; shown: string } {
  const baseURL = o.baseURL ?? process.env.OPENAI_BASE_URL;
  if (baseURL && withoutCredentials(baseURL) !== baseURL)
    throw new Error(
      `the server URL ${withoutCredentials(baseURL)} carries a user name and password, which a request cannot send in its URL: give the URL without them and put the token in $OPENAI_API_KEY (sent as a Bearer token)`,
    );
  const apiKey = o.apiKey ?? keyFor(o.baseURL, process.env.OPENAI_BASE_URL ?? "", process.env.OPENAI_API_KEY) ?? "no-key";
  const client = new OpenAI({ apiKey, ...(baseURL ? { baseURL } : {}), timeout: o.timeoutMs, maxRetries: o.maxRetries, fetch: serverFetch(baseURL ?? "https://api.openai.com/v1") });
  return { client, shown: withoutCredentials(client.baseURL) };
}
