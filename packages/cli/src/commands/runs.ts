import { modelCalls, type ModelCall } from "@citeflow/core";
import { RunStore, type RunRecord } from "@citeflow/runstore";
import { FailureError } from "../errors.js";
import { fmtMs } from "../progress.js";
import { preview, table } from "../table.js";

const out = (s: string) => process.stdout.write(s);

function open(runs: string, runId: string): RunStore {
  const store = new RunStore(runs);
  if (!store.hasRun(runId)) throw new FailureError(`no run "${runId}" in ${store.runsDir} (see: citeflow runs list --runs ${runs})`);
  return store;
}

export function runsList(runs: string, json: boolean, origin?: string): number {
  const problems: string[] = [];
  const list = new RunStore(runs).listRuns(problems).filter((r) => !origin || r.origin === origin);
  for (const p of problems) process.stderr.write(`left out, cannot be read: ${p}\n`);
  if (json) out(JSON.stringify(list) + "\n");
  else if (list.length === 0) out(`no runs${origin ? ` started from the ${origin}` : ""} in ${runs}\n`);
  else
    out(
      table(
        ["run", "graph", "kind", "from", "status", "started", "time", "nodes", "question"],
        list.map((r) => [r.runId, r.graph, r.kind, r.origin ?? "", r.status, new Date(r.startedAt).toISOString(), fmtMs(r.ms), String(r.nodes), preview(r.question ?? "", 60)]),
      ),
    );
  return 0;
}

/** Every language-model call a run made, by node (a node served from the cache made none). */
export function runModelCalls(store: RunStore, r: RunRecord): Array<ModelCall & { node: string }> {
  return r.nodes.flatMap((n) => modelCalls(n.spans, (s) => store.spanData(s)).map((c) => ({ node: n.id, ...c })));
}

export function runsShow(runs: string, runId: string, json: boolean): number {
  const store = open(runs, runId);
  const r = store.readRun(runId);
  const corrections = store.corrections(runId);
  if (json) {
    out(JSON.stringify({ ...r, corrections }) + "\n");
    return 0;
  }
  out(`run ${r.runId} · graph "${r.graph.name}" · ${r.status}${r.ms !== undefined ? ` in ${fmtMs(r.ms)}` : ""} · started ${new Date(r.startedAt).toISOString()}\n`);
  for (const name of Object.keys(r.inputHashes)) out(`input ${name}: ${preview(store.runInput(runId, name), 100)}\n`);
  const opt = r.options;
  const flags = [
    opt.to && `to=${opt.to}`,
    opt.from && `from=${opt.from}`,
    opt.only && `only=${opt.only}`,
    opt.force && "force",
    opt.overridden.length && `overridden=${opt.overridden.join(",")}`,
  ].filter(Boolean);
  if (flags.length) out(`options: ${flags.join(" ")}\n`);
  out("\n");
  out(
    table(
      ["node", "type", "status", "cache", "time", "output"],
      r.nodes.map((n) => [
        n.id,
        n.type,
        n.status,
        n.cache ?? "",
        fmtMs(n.ms),
        n.error ? `${n.error.name}: ${n.error.message}` : (n.skipReason ?? (n.outputHashes ? preview(store.outputOf(n), 60) : "")),
      ]),
    ),
  );
  const spans = r.nodes.flatMap((n) => n.spans.map((s) => ({ n, s })));
  const calls = runModelCalls(store, r);
  if (calls.length) {
    out("\n");
    const n = (v: number | undefined) => (v === undefined ? "" : String(v));
    out(
      table(
        ["node", "call", "model", "where", "load", "prompt tok", "reused", "answer tok", "first token", "tok/s"],
        calls.map((c) => [
          c.node,
          c.span,
          c.model,
          c.where,
          c.loadMs !== undefined ? fmtMs(c.loadMs) : "",
          n(c.promptTokens),
          n(c.cachedPromptTokens),
          n(c.completionTokens),
          c.timeToFirstTokenMs !== undefined ? fmtMs(c.timeToFirstTokenMs) : "",
          n(c.tokensPerSecond),
        ]),
      ),
    );
  }
  if (spans.length) out(`\n${spans.length} span(s) recorded; see them with --json\n`);
  for (const c of corrections) {
    const what =
      c.kind === "verdict"
        ? `claim ${c.claimId}${c.passageId ? ` × ${c.passageId}` : ""} → ${c.label}`
        : c.kind === "answer"
          ? `answer → ${preview(c.text, 60)}`
          : `${c.passageId} ${c.relevant ? "relevant" : "not relevant"}`;
    out(`correction ${c.id} (${c.kind}, node ${c.nodeId}): ${what}${c.note ? ` — ${c.note}` : ""}\n`);
  }
  for (const p of r.problems) out(`problem: ${p}\n`);
  return 0;
}

export function runsOutput(runs: string, runId: string, nodeId: string, port: string | undefined): number {
  const store = open(runs, runId);
  try {
    out(JSON.stringify(store.nodeOutput(runId, nodeId, port), null, 2) + "\n");
  } catch (e) {
    throw new FailureError((e as Error).message);
  }
  return 0;
}

export function runsDiff(runs: string, a: string, b: string, json: boolean): number {
  const store = open(runs, a);
  open(runs, b);
  const d = store.diff(a, b);
  if (json) {
    out(JSON.stringify(d) + "\n");
    return 0;
  }
  out(`diff ${a} → ${b}: ${d.sameGraph ? "same graph" : "graph changed"}${d.inputs.length ? `; inputs changed: ${d.inputs.join(", ")}` : ""}\n\n`);
  out(
    table(
      ["node", "change", "params", "outputs", "a", "b", "Δ time"],
      d.nodes.map((n) => [
        n.id,
        n.change,
        n.params.map((p) => `${p.path}: ${preview(p.a, 20)} → ${preview(p.b, 20)}`).join("; "),
        n.outputs.join(", "),
        n.a ? `${n.a.status}${n.a.cache ? `/${n.a.cache}` : ""} ${fmtMs(n.a.ms)}` : "—",
        n.b ? `${n.b.status}${n.b.cache ? `/${n.b.cache}` : ""} ${fmtMs(n.b.ms)}` : "—",
        n.msDelta !== undefined ? `${n.msDelta >= 0 ? "+" : ""}${fmtMs(n.msDelta)}` : "",
      ]),
    ),
  );
  if (d.metrics?.length) {
    const num = (v: number | undefined) => (v === undefined ? "—" : Number.isInteger(v) ? String(v) : v.toFixed(3));
    out(
      "\n" +
        table(
          ["metric", "a", "b"],
          d.metrics.map((m) => [m.name, num(m.a), num(m.b)]),
        ),
    );
  }
  return 0;
}
