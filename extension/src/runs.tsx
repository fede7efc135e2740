/** Runs of this graph: history, open one read-only, diff two side by side per node. */
import { useEffect, useState, type ReactNode } from "react";
import { trans } from "./i18n";
import { slug } from "./model";
import { DiffView, type RunDiff } from "./rundiff";
import type { EditorState } from "./state";
import { RUN_ORIGINS, type RunListingView, type RunOrigin } from "@citeflow/core/browser";

/** How the Runs list names where a run was started. */
const ORIGIN_NAMES: Record<RunOrigin, string> = { editor: trans.__("editor"), notebook: trans.__("notebook"), cli: "CLI" };

/** A labelled form row with optional help text. */
function Field({ id, label, help, children }: { id: string; label: string; help?: string; children: ReactNode }) {
  return (
    <div className="cf-field">
      <label htmlFor={id}>{label}</label>
      {children}
      {help && <small className="cf-help">{help}</small>}
    </div>
  );
}

/** When a run started, compactly: the time for today's runs, the date and time for older ones. */
function startedAt(ms: number): string {
  const d = new Date(ms);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
}

export function RunsPanel({ state }: { state: EditorState }) {
  const [runs, setRuns] = useState<RunListingView[]>([]);
  const [pick, setPick] = useState<string[]>([]);
  const [diff, setDiff] = useState<RunDiff>();
  const [error, setError] = useState<string>();
  // Which front end's runs to list ("" = all): the editor's, a notebook's, the CLI's.
  const [origin, setOrigin] = useState("");
  const shown = origin ? runs.filter((r) => r.origin === origin) : runs;
  const refresh = () =>
    state.stored
      .list()
      .then(setRuns)
      .catch((e: Error) => setError(e.message));
  useEffect(() => void refresh(), [state.run?.status]);
  const toggle = (id: string) => setPick((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));
  // A diff reads in time order, whichever was checked first: A the older run, B the newer (an edit 5 → 3 reads "5 → 3").
  const started = (id: string) => runs.find((r) => r.runId === id)?.startedAt ?? 0;
  const inOrder = () => [...pick].sort((x, y) => started(x) - started(y));
  return (
    <div className="cf-runs">
      <button className="cf-button" onClick={() => void refresh()}>
        {trans.__("Refresh")}
      </button>{" "}
      <button
        className="cf-button"
        disabled={pick.length !== 2}
        onClick={() =>
          state.stored
            .diff(inOrder()[0]!, inOrder()[1]!)
            .then(setDiff)
            .catch((e: Error) => setError(e.message))
        }
      >
        {trans.__("Diff the two checked runs")}
      </button>{" "}
      <label className="cf-runs-origin">
        {trans.__("from")}{" "}
        <select aria-label={trans.__("show the runs started from")} value={origin} onChange={(e) => setOrigin(e.target.value)}>
          <option value="">{trans.__("everywhere (%1)", runs.length)}</option>
          {RUN_ORIGINS.map((o) => (
            <option key={o} value={o}>
              {`${ORIGIN_NAMES[o]} (${runs.filter((r) => r.origin === o).length})`}
            </option>
          ))}
        </select>
      </label>
      {error && <p className="cf-error">{error}</p>}
      <table className="cf-table">
        <thead>
          <tr>
            <th />
            <th>{trans.__("run")}</th>
            <th>{trans.__("kind")}</th>
            <th>{trans.__("from")}</th>
            <th>{trans.__("status")}</th>
            <th>{trans.__("started")}</th>
            <th>{trans.__("took")}</th>
            <th>{trans.__("question")}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.runId} data-run={r.runId} className={state.run?.runId === r.runId ? "cf-focus" : undefined}>
              <td>
                <input type="checkbox" aria-label={trans.__("pick %1 for diff", r.runId)} checked={pick.includes(r.runId)} onChange={() => toggle(r.runId)} />
              </td>
              <td>
                <button className="cf-link cf-mono" onClick={() => void state.openRun(r.runId).catch((e: Error) => setError(e.message))}>
                  {r.runId}
                </button>
              </td>
              <td className="cf-run-kind" title={r.kind ?? ""}>
                {r.kind ?? ""}
              </td>
              <td className="cf-run-origin">{r.origin ? (ORIGIN_NAMES[r.origin as RunOrigin] ?? r.origin) : ""}</td>
              <td>{r.status}</td>
              <td title={new Date(r.startedAt).toLocaleString()}>{startedAt(r.startedAt)}</td>
              <td className="cf-num">{r.ms !== undefined ? `${(r.ms / 1000).toFixed(1)} s` : ""}</td>
              <td className="cf-run-question" title={r.question ?? ""}>
                {r.question ?? ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {diff && <DiffView key={`${diff.a}/${diff.b}`} diff={diff} state={state} />}
      <ExportForm state={state} runIds={shown.map((r) => r.runId)} />
    </div>
  );
}

/** Export training data from this graph's runs (the kernel writes the JSONL files and the card). */
function ExportForm({ state, runIds }: { state: EditorState; runIds: string[] }) {
  const stem = slug(state.doc.name);
  const [format, setFormat] = useState("sft");
  const [out, setOut] = useState<string>();
  const [split, setSplit] = useState(0.9);
  const [seed, setSeed] = useState(0);
  const [metadata, setMetadata] = useState(true);
  const [parquet, setParquet] = useState(false);
  const [result, setResult] = useState<{ out: string; files: Record<string, number>; runs: number; removed: { exact: number; near: number }; warnings?: string[] }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [formats, setFormats] = useState<string[]>([]);
  useEffect(() => {
    state.stored
      .exportFormats()
      .then((f) => setFormats([...f]))
      .catch((e: Error) => setError(e.message));
  }, [state]);
  const folder = out ?? `datasets/${stem}-${format}`;
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await state.stored.export({ format, out: folder, split, seed, metadata, parquet, ...(runIds ? { runIds } : {}) }));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="cf-export">
      <summary>{trans.__("Export training data")}</summary>
      <form className="cf-params" onSubmit={(e) => (e.preventDefault(), void submit())}>
        <Field id="cf-export-format" label={trans.__("format")}>
          <select id="cf-export-format" name="format" value={format} onChange={(e) => setFormat(e.target.value)}>
            {formats.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </Field>
        <Field id="cf-export-out" label={trans.__("folder")} help={trans.__("Relative to the pipeline's folder; holds the JSONL files and the dataset card (README.md).")}>
          <input id="cf-export-out" name="out" type="text" value={folder} onChange={(e) => setOut(e.target.value)} />
        </Field>
        <Field id="cf-export-split" label={trans.__("train fraction")}>
          <input id="cf-export-split" name="split" type="number" min={0} max={1} step={0.05} value={split} onChange={(e) => setSplit(Number(e.target.value))} />
        </Field>
        <Field id="cf-export-seed" label={trans.__("seed")}>
          <input id="cf-export-seed" name="seed" type="number" step={1} value={seed} onChange={(e) => setSeed(Number(e.target.value))} />
        </Field>
        <Field id="cf-export-metadata" label={trans.__("metadata")} help={trans.__("Back-links (run, node, graph hash, passages, models) on every row; off for providers that reject extra keys.")}>
          <input id="cf-export-metadata" name="metadata" type="checkbox" checked={metadata} onChange={(e) => setMetadata(e.target.checked)} />
        </Field>
        <Field id="cf-export-parquet" label="Parquet">
          <input id="cf-export-parquet" name="parquet" type="checkbox" checked={parquet} onChange={(e) => setParquet(e.target.checked)} />
        </Field>
        <button className="cf-button cf-primary" type="submit" disabled={busy || !runIds.length}>
          {trans._n("Export from %1 run", "Export from %1 runs", runIds.length)}
        </button>
      </form>
      {error && <p className="cf-error">{error}</p>}
      {result && (
        <p className="cf-notice" role="status" data-export={result.out}>
          {trans.__(
            "Wrote %1 to %2 (from %3 runs; %4 duplicates removed).",
            Object.entries(result.files)
              .map(([f, n]) => `${f}: ${n}`)
              .join(", "),
            result.out,
            result.runs,
            result.removed.exact + result.removed.near,
          )}
        </p>
      )}
      {result?.warnings?.map((w) => (
        <p key={w} className="cf-error" role="alert">
          {trans.__("Warning: %1", w)}
        </p>
      ))}
    </details>
  );
}
