/** A node's language-model calls, read from its trace. */
import type { SpanLike } from "./feedback";

export interface ModelCall {
  span: string;
  model: string;
  where: string;
  promptTokens?: number;
  completionTokens?: number;
  timeToFirstTokenMs?: number;
  tokensPerSecond?: number;
}

type CallData = { model?: unknown; baseURL?: unknown; servedBy?: unknown; usage?: Partial<Record<"promptTokens" | "completionTokens" | "timeToFirstTokenMs" | "tokensPerSecond", number>> };

/** Every span (at any depth) whose data names a model and where it ran. */
export function modelCalls(spans: SpanLike[]): ModelCall[] {
  const out: ModelCall[] = [];
  const walk = (s: SpanLike) => {
    const d = s.data as CallData | undefined;
    if (d && typeof d.model === "string" && typeof d.baseURL === "string") out.push({ span: s.name, model: typeof d.servedBy === "string" ? d.servedBy : d.model, where: d.baseURL, ...(d.usage ?? {}) });
    s.children.forEach(walk);
  };
  spans.forEach(walk);
  return out;
}
