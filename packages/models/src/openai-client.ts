import { withoutCredentials } from "@citeflow/core";
import OpenAI from "openai";
import { serverFetch } from "./server-fetch.js";

/**
 * The OpenAI SDK client behind every OpenAI-compatible model (chat, embeddings), so both follow
 * the same rules: the server is `baseURL`, else OpenAI's API; the key is `apiKey` (none: "no-key",
 * for servers without one), sent to that server only. Neither is read from the environment here or
 * by the SDK: an edge reads $OPENAI_BASE_URL, $OPENAI_API_KEY and $OPENAI_CUSTOM_HEADERS (nodes'
 * `configFromEnv`) and says which key and headers go where (`keyFor`); a request carries `headers` and no
 * others the SDK would add from the environment. A server URL that carries a user name and password is refused
 * by name (requests cannot send them in the URL, and the SDK would only say "Connection error").
 * Every request goes through the server's shared budget (`serverFetch`: 429 holds, concurrency,
 * tokens per minute), with `timeoutMs` covering the reply's whole body and its size bounded. `shown`: the server as it may be printed.
 */
const OPENAI_API = "https://api.openai.com/v1";

export function openAIClient(o: { baseURL?: string | undefined; apiKey?: string | undefined; headers?: Readonly<Record<string, string>> | undefined; timeoutMs: number; maxRetries: number }): {
  client: OpenAI;
  shown: string;
} {
  const baseURL = o.baseURL || OPENAI_API;
  if (withoutCredentials(baseURL) !== baseURL)
    throw new Error(
      `the server URL ${withoutCredentials(baseURL)} carries a user name and password, which a request cannot send in its URL: give the URL without them and put the token in $OPENAI_API_KEY (sent as a Bearer token)`,
    );
  // What the SDK would otherwise read from the environment and send to whichever server this is: none of it.
  const unread = { adminAPIKey: null, organization: null, project: null, webhookSecret: null };
  const client = new Client({ apiKey: o.apiKey || "no-key", baseURL, ...unread, timeout: o.timeoutMs, maxRetries: o.maxRetries, fetch: serverFetch(baseURL, fetch, o.timeoutMs) }, o.headers);
  return { client, shown: withoutCredentials(client.baseURL) };
}

/** The SDK's client with its default headers exactly those given: the SDK merges $OPENAI_CUSTOM_HEADERS into them for any server. */
class Client extends OpenAI {
  constructor(options: ConstructorParameters<typeof OpenAI>[0], headers: Readonly<Record<string, string>> | undefined) {
    super(options);
    this._options = { ...this._options, defaultHeaders: headers ? { ...headers } : undefined };
  }
}
