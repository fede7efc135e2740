import { docIdOf, splitRef, type Passage } from "@citeflow/core";
import type { NodeRecord, RunRecord, RunStore, SpanRecord } from "@citeflow/runstore";
import type { Provenance } from "./provenance.js";

/** Reads node inputs and outputs of one stored run by following its graph's edges. */
export class RunView {
  constructor(
    readonly store: RunStore,
    readonly record: RunRecord,
  ) {}

  output(nodeId: string, port: string): unknown {
    const n = this.record.nodes.find((x) => x.id === nodeId);
    if (!n?.outputHashes?.[port]) return undefined;
    return this.store.blobs.get(n.outputHashes[port]!);
  }

  input(nodeId: string, port: string): unknown {
    const edge = this.record.graph.edges.find((e) => e.to === `${nodeId}.${port}`);
    if (!edge) return undefined;
    const from = splitRef(edge.from);
    return from && this.output(from.node, from.port);
  }

  /** The run's question (its `question` input's text), when it has one. */
  get question(): string | undefined {
    const hash = this.record.inputHashes.question;
    const q = hash ? (this.store.blobs.get(hash) as { text?: unknown } | undefined) : undefined;
    return typeof q?.text === "string" ? q.text : undefined;
  }

  /** A span's data, read from its blob when it was stored as one. */
  spanData(s: SpanRecord): Record<string, unknown> | undefined {
    return this.store.spanData(s);
  }

  /** The model a node used, from its spans (absent for a node taken from the cache). */
  modelOf(n: NodeRecord): string | undefined {
    const find = (spans: SpanRecord[]): string | undefined => {
      for (const s of spans) {
        const data = this.store.spanData(s);
        if (data && typeof data.model === "string") return data.model;
        const deeper = find(s.children);
        if (deeper) return deeper;
      }
      return undefined;
    };
    return find(n.spans);
  }

  provenance(nodeId: string, passages: Passage[], models: Record<string, string>): Provenance {
    const docIds = [...new Set(passages.map((p) => docIdOf(p.id)))];
    const sources = [...new Set(passages.map((p) => p.metadata?.source).filter((s): s is string => typeof s === "string"))];
    const nodeType = this.record.graph.nodes.find((n) => n.id === nodeId)?.type ?? "";
    return { runId: this.record.runId, graph: this.record.graph.name, graphHash: this.record.graphHash, nodeId, nodeType, passageIds: passages.map((p) => p.id), docIds, models, sources };
  }
}
