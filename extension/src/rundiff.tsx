/**
 * Two runs compared (the kernel's "diff"): metrics, then node by node (change, params, the outputs
 * that differ, timings); a node opened shows its outputs from both runs side by side, each through
 * the inspector for its value type.
 */
import { useEffect, useRef, useState } from "react";
import { trans } from "./i18n";
import { isAnswer, ValueView, WordDiff } from "./inspectors";
import { reveal } from "./reveal";
import type { EditorState } from "./state";
import type { RunDiffView } from "@citeflow/core/browser";

type NodeDiff = RunDiffView["nodes"][number];
/** Two runs compared, as the kernel's `diff` answers. */
export type RunDiff = RunDiffView;

const num = (v: number | undefined) => (v === undefined ? "—" : Number.isInteger(v) ? String(v) : v.toFixed(3));
const fmt = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));

export function DiffView({ diff, state }: { diff: RunDiff; state: EditorState }) {
  const [open, setOpen] = useState<string>();
  const opened = diff.nodes.find((n) => n.id === open);
  return (
    <div className="cf-diff">
      <h4>
        {diff.a} ⟷ {diff.b}
      </h4>
      <p className="cf-muted">
        {diff.sameGraph ? trans.__("Same graph.") : trans.__("The graphs differ.")} {diff.inputs.length ? trans.__("Inputs differ: %1", diff.inputs.join(", ")) : trans.__("Same inputs.")}
      </p>
      {!!diff.metrics?.length && (
        <table className="cf-table cf-metrics">
          <thead>
            <tr>
              <th>{trans.__("metric")}</th>
              <th>A</th>
              <th>B</th>
            </tr>
          </thead>
          <tbody>
            {diff.metrics.map((m) => (
              <tr key={m.name} data-metric={m.name} className={m.a !== m.b ? "cf-diff-changed" : undefined}>
                <td className="cf-mono">{m.name}</td>
                <td className="cf-num">{num(m.a)}</td>
                <td className="cf-num">{num(m.b)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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
            <tr key={n.id} data-diff-node={n.id} className={`cf-diff-${n.change}${n.id === open ? " cf-focus" : ""}`}>
              <td>
                <button
                  className="cf-link cf-mono"
                  aria-expanded={n.id === open}
                  title={trans.__("Show the outputs of %1 side by side", n.id)}
                  onClick={() => setOpen(n.id === open ? undefined : n.id)}
                >
                  {n.id}
                </button>
              </td>
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
      {opened && <SideBySide key={opened.id} state={state} diff={diff} node={opened} />}
    </div>
  );
}

/** A side's outputs (port → value), or why it has none (the node did not finish in that run). */
type Side = Record<string, unknown> | Error | undefined;

/** One node's outputs in run A and in run B, port by port; the ports that differ come first. */
function SideBySide({ state, diff, node }: { state: EditorState; diff: RunDiff; node: NodeDiff }) {
  const [sides, setSides] = useState<[Side, Side]>([undefined, undefined]);
  const box = useRef<HTMLDivElement>(null);
  const loaded = sides.every((s) => s !== undefined);
  // Opened below the node table: brought into view once both runs' outputs are in.
  useEffect(() => void (loaded && reveal(box.current)), [loaded]);
  useEffect(() => {
    let live = true;
    const get = (runId: string) => state.stored.outputs(runId, node.id).catch((e: Error) => e);
    void Promise.all([get(diff.a), get(diff.b)]).then((got) => live && setSides(got));
    return () => void (live = false);
  }, [state, diff, node.id]);
  const values = (side: Side) => (side instanceof Error ? undefined : side);
  const ports = [...new Set(sides.flatMap((s) => Object.keys(values(s) ?? {})))];
  ports.sort((p, q) => Number(node.outputs.includes(q)) - Number(node.outputs.includes(p)));
  // A text that differs (an answer's, or a string) is also shown as one word diff, A → B.
  const text = (side: Side, port: string) => {
    const v = values(side)?.[port];
    return typeof v === "string" ? v : isAnswer(v) ? v.text : undefined;
  };
  const cell = (side: Side, port: string) => {
    if (side instanceof Error) return <p className="cf-muted">{side.message}</p>;
    return side && port in side ? <ValueView value={side[port]} /> : <p className="cf-muted">—</p>;
  };
  return (
    <div className="cf-side-by-side" data-node={node.id} ref={box}>
      <h4>{trans.__("%1: outputs of A and B", node.id)}</h4>
      {!loaded && <p className="cf-muted">{trans.__("Loading…")}</p>}
      {sides.every((s) => s instanceof Error) && <p className="cf-muted">{(sides[0] as Error).message}</p>}
      {ports.map((port) => {
        const [inA, inB] = sides.map((side) => port in (values(side) ?? {}));
        const differs = node.outputs.includes(port) || inA !== inB;
        const label = !inB ? trans.__("only in A") : !inA ? trans.__("only in B") : differs ? trans.__("differs") : trans.__("same");
        const [a, b] = sides.map((side) => text(side, port));
        return (
          <section key={port} className="cf-side-port" data-port={port} data-differs={differs}>
            <h5 className="cf-mono">
              {port} <span className={differs ? "cf-diff-mark" : "cf-muted"}>{label}</span>
            </h5>
            {differs && a !== undefined && b !== undefined && <WordDiff a={a} b={b} />}
            <div className="cf-side-cols">
              {sides.map((side, i) => (
                <div key={i} className="cf-side" data-side={i ? "b" : "a"}>
                  <div className="cf-muted cf-mono">{i ? "B" : "A"}</div>
                  {cell(side, port)}
                </div>
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}
