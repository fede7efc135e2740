/** Runs of this graph: history, open one read-only, diff two side by side per node. */
import { useEffect, useState } from "react";
import { trans } from "./i18n";
import type { EditorState } from "./state";

interface Listing {
  runId: string;
  graph: string;
  status: string;
  startedAt: number;
  ms?: number;
  question?: string;
}

interface NodeDiff {
  id: string;
  change: string;
  params: Array<{ path: string; a?: unknown; b?: unknown }>;
  inputs: string[];
  outputs: string[];
  a?: { status: string; ms?: number };
  b?: { status: string; ms?: number };
  msDelta?: number;
}

export function RunsPanel({ state }: { state: EditorState }) {
  const [runs, setRuns] = useState<Listing[]>([]);
  const [pick, setPick] = useState<string[]>([]);
  const [diff, setDiff] = useState<{ a: string; b: string; sameGraph: boolean; inputs: string[]; nodes: NodeDiff[] }>();
  const [error, setError] = useState<string>();
  const refresh = () =>
    state.client
      .request<Listing[]>("runs", { graphName: state.doc.name })
      .then(setRuns)
      .catch((e: Error) => setError(e.message));
  useEffect(() => void refresh(), [state.run?.status]);
  const toggle = (id: string) => setPick((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));
  return (
    <div className="cf-runs">
      <button className="cf-button" onClick={() => void refresh()}>
        {trans.__("Refresh")}
      </button>{" "}
      <button
        className="cf-button"
        disabled={pick.length !== 2}
        onClick={() =>
          state.client
            .request<typeof diff>("diff", { a: pick[0], b: pick[1] })
            .then(setDiff)
            .catch((e: Error) => setError(e.message))
        }
      >
        {trans.__("Diff the two checked runs")}
      </button>
      {error && <p className="cf-error">{error}</p>}
      <table className="cf-table">
        <thead>
          <tr>
            <th />
            <th>{trans.__("run")}</th>
            <th>{trans.__("status")}</th>
            <th>{trans.__("started")}</th>
            <th>ms</th>
            <th>{trans.__("question")}</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.runId} data-run={r.runId} className={state.run?.runId === r.runId ? "cf-focus" : undefined}>
              <td>
                <input type="checkbox" aria-label={trans.__("pick %1 for diff", r.runId)} checked={pick.includes(r.runId)} onChange={() => toggle(r.runId)} />
              </td>
              <td>
                <button className="cf-link cf-mono" onClick={() => void state.openRun(r.runId).catch((e: Error) => setError(e.message))}>
                  {r.runId}
                </button>
              </td>
              <td>{r.status}</td>
              <td>{new Date(r.startedAt).toLocaleString()}</td>
              <td className="cf-num">{r.ms !== undefined ? Math.round(r.ms) : ""}</td>
              <td>{r.question ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {diff && <DiffView diff={diff} />}
    </div>
  );
}

function DiffView({ diff }: { diff: { a: string; b: string; sameGraph: boolean; inputs: string[]; nodes: NodeDiff[] } }) {
  const fmt = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));
  return (
    <div className="cf-diff">
      <h4>
        {diff.a} ⟷ {diff.b}
      </h4>
      <p className="cf-muted">
        {diff.sameGraph ? trans.__("Same graph.") : trans.__("The graphs differ.")} {diff.inputs.length ? trans.__("Inputs differ: %1", diff.inputs.join(", ")) : trans.__("Same inputs.")}
      </p>
      <table className="cf-table">
        <thead>
          <tr>
            <th>{trans.__("node")}</th>
            <th>{trans.__("change")}</th>
            <th>{trans.__("params")}</th>
            <th>{trans.__("outputs differ")}</th>
            <th>{trans.__("A ms")}</th>
            <th>{trans.__("B ms")}</th>
          </tr>
        </thead>
        <tbody>
          {diff.nodes.map((n) => (
            <tr key={n.id} data-diff-node={n.id} className={`cf-diff-${n.change}`}>
              <td className="cf-mono">{n.id}</td>
              <td>{n.change}</td>
              <td>
                {n.params.map((p) => (
                  <div key={p.path} className="cf-mono">
                    {p.path}: {fmt(p.a)} → {fmt(p.b)}
                  </div>
                ))}
              </td>
              <td>{n.outputs.join(", ")}</td>
              <td className="cf-num">{n.a?.ms !== undefined ? Math.round(n.a.ms) : ""}</td>
              <td className="cf-num">{n.b?.ms !== undefined ? Math.round(n.b.ms) : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
