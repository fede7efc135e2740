import OpenAI from "openai";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatResult {
  text: string;
  /** The model the server says answered. */
  model: string;
  usage?: ChatUsage;
  finishReason?: string;
}

export interface ChatOptions {
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  signal?: AbortSignal;
}

/** Messages in, text and usage out. */
export interface ChatModel {
  readonly id: string;
  /** Server address, without any key: safe to record. */
  readonly baseURL: string;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
}

export interface OpenAIChatOptions {
  model: string;
  /** Default: $OPENAI_BASE_URL, else the SDK's default. */
  baseURL?: string;
  /** Default: $OPENAI_API_KEY. Never recorded. */
  apiKey?: string;
  /** Per-request timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, with backoff honouring Retry-After (default 3). */
  maxRetries?: number;
}

/** Chat completions from any OpenAI-compatible server: OpenAI, vLLM, Ollama, llama.cpp, LM Studio. */
export function openAIChat(o: OpenAIChatOptions): ChatModel {
  const baseURL = o.baseURL ?? process.env.OPENAI_BASE_URL;
  const client = new OpenAI({ apiKey: o.apiKey ?? process.env.OPENAI_API_KEY ?? "no-key", ...(baseURL ? { baseURL } : {}), timeout: o.timeoutMs ?? 120_000, maxRetries: o.maxRetries ?? 3 });
  const where = `chat model ${o.model} at ${client.baseURL}`;
  return {
    id: o.model,
    baseURL: client.baseURL,
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
        ...(u ? { usage: { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, totalTokens: u.total_tokens } } : {}),
        ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
      };
    },
  };
}
