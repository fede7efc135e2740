/** A node's language-model calls, read from its trace (browser-safe: the editor and the CLI share it). */

export interface ModelCall {
  span: string;
  model: string;
  where: string;
  promptTokens?: number;
  /** Prompt tokens the model did not read again (a reused sequence, a server's prompt cache). */
  cachedPromptTokens?: number;
  completionTokens?: number;
  timeToFirstTokenMs?: number;
  tokensPerSecond?: number;
  /** A model's load (its first use in a session): how long it took, in ms. */
  loadMs?: number;
}

/** The part of a trace span this reads. */
export interface CallSpan {
  name: string;
  data?: unknown;
  children: CallSpan[];
}

type CallData = {
  model?: unknown;
  baseURL?: unknown;
  servedBy?: unknown;
  /** A model's load: how long it took, and where (no baseURL: it is not a call). */
  loadMs?: unknown;
  where?: unknown;
  usage?: Partial<Record<"promptTokens" | "cachedPromptTokens" | "completionTokens" | "timeToFirstTokenMs" | "tokensPerSecond", number>>;
};

/**
 * Every span (at any depth) whose data names a model and where it ran, with the model that served
 * it and its usage; and every model load (a span with `loadMs`), with its time. `dataOf` reads a span's data (a run
 * store resolves data kept in blobs).
 */
export function modelCalls<S extends CallSpan>(spans: S[], dataOf: (s: S) => unknown = (s) => s.data): ModelCall[] {
  const out: ModelCall[] = [];
  const walk = (s: S) => {
    const d = dataOf(s) as CallData | undefined;
    if (d && typeof d.model === "string" && typeof d.baseURL === "string")
      out.push({ span: s.name, model: typeof d.servedBy === "string" ? d.servedBy : d.model, where: d.baseURL, ...(d.usage ?? {}) });
    else if (d && typeof d.model === "string" && typeof d.loadMs === "number") out.push({ span: s.name, model: d.model, where: typeof d.where === "string" ? d.where : "", loadMs: d.loadMs });
    (s.children as S[]).forEach(walk);
  };
  spans.forEach(walk);
  return out;
}

/** The tokens a run's language-model calls generated, from its events (each call's span ends with its usage). */
export function generatedTokens(events: Iterable<{ type: string; data?: unknown }>): number {
  let n = 0;
  for (const e of events) {
    const u = e.type === "span-end" ? (e.data as CallData | undefined)?.usage : undefined;
    if (typeof u?.completionTokens === "number") n += u.completionTokens;
  }
  return n;
}
