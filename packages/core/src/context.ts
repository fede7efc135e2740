/** What a node sees while it runs (`NodeContext`): its run, signal, services, logs, progress and spans. */
import { AsyncLocalStorage } from "node:async_hooks";
import { errorInfo, type RunEvent } from "./events.js";
import type { NodeContext, Services, SpanHandle } from "./node.js";

interface SpanFrame {
  id: string;
  nodeId: string;
}

// The span a node's code is in, across its awaits: a span opened inside another becomes its child.
const spanScope = new AsyncLocalStorage<SpanFrame>();

/** Runs a node's `run` as the root of its spans. */
export function inNode<T>(nodeId: string, fn: () => Promise<T>): Promise<T> {
  return spanScope.run({ id: "", nodeId }, fn);
}

export interface ContextOptions {
  runId: string;
  nodeId: string;
  signal: AbortSignal;
  services: Services;
  graphInput: unknown;
  emit(event: RunEvent): void;
}

export function nodeContext({ runId, nodeId, signal, services, graphInput, emit }: ContextOptions): NodeContext {
  let spanCount = 0;
  return {
    runId,
    nodeId,
    signal,
    services,
    graphInput,
    log: (level, message, data) => emit({ type: "node-log", runId, at: Date.now(), nodeId, level, message, ...(data !== undefined ? { data } : {}) }),
    progress: (done, total, message) => emit({ type: "node-progress", runId, at: Date.now(), nodeId, done, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) }),
    span: async <T>(name: string, fn: (span: SpanHandle) => Promise<T>, attrs?: Record<string, unknown>): Promise<T> => {
      const parent = spanScope.getStore();
      const spanId = `${nodeId}/${++spanCount}`;
      const data: Record<string, unknown> = {};
      const handle: SpanHandle = { id: spanId, set: (k, v) => void (data[k] = v) };
      const t0 = performance.now();
      emit({ type: "span-start", runId, at: Date.now(), nodeId, spanId, name, ...(parent?.id ? { parentId: parent.id } : {}), ...(attrs ? { attrs } : {}) });
      const end = (status: "ok" | "error", error?: unknown) =>
        emit({
          type: "span-end",
          runId,
          at: Date.now(),
          nodeId,
          spanId,
          ms: performance.now() - t0,
          status,
          ...(error !== undefined ? { error: errorInfo(error) } : {}),
          ...(Object.keys(data).length ? { data } : {}),
        });
      try {
        const value = await spanScope.run({ id: spanId, nodeId }, () => fn(handle));
        end("ok");
        return value;
      } catch (e) {
        end("error", e);
        throw e;
      }
    },
  };
}
