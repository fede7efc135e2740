/** The run an editor shows: its type, a node's badge, and a stored run read back as one. */
import { storedNodeProgress, type CorrectionView, type NodeProgress, type NodeStatus, type RunProgress, type RunRecordView } from "@citeflow/core/browser";

/** A run shown in the editor: where each node is (core's `reduceRunEvent`), and what was selected to run. */
export interface RunState extends RunProgress {
  selected: string[];
  /** Opened from the runs panel: shown, never re-run in place. */
  readOnly?: boolean;
  /** A stored run's params, node by node, as it ran: shown instead of the graph's, which may have changed since. */
  params?: Record<string, Record<string, unknown>>;
  /** Corrections recorded on this run (stored beside it), oldest first. */
  corrections?: CorrectionView[];
}

/** A node's status as its badge shows it: a result from the cache is "cached". */
export function badgeStatus(n: NodeProgress): NodeStatus | "cached" {
  return n.status === "done" && n.cache === "hit" ? "cached" : n.status;
}

/** A stored run as the editor shows it (read-only): its badges, params and corrections from the record. */
export function storedRunState(runId: string, rec: RunRecordView): RunState {
  const nodes: Record<string, NodeProgress> = {};
  const params: Record<string, Record<string, unknown>> = {};
  for (const n of rec.nodes) {
    if (n.params) params[n.id] = n.params;
    nodes[n.id] = storedNodeProgress(n);
  }
  return {
    runId,
    status: (rec.status === "incomplete" ? "aborted" : rec.status) as RunState["status"],
    selected: Object.keys(nodes),
    nodes,
    readOnly: true,
    params,
    corrections: rec.corrections,
    ...(rec.ms !== undefined ? { ms: rec.ms } : {}),
  };
}
