/** The editor's toolbar: the question, the run controls, and the run's status in words. */
import { trans } from "./i18n";
import type { EditorState, RunOptions } from "./state";

/** The run's state in words: "Running 3 of 8 nodes…", "Paused before verify", "Done in 263 ms". */
export function runStatusText(run: { status: string; pausedAt?: string; ms?: number; readOnly?: boolean }, done: number, total: number): string {
  const took = run.ms !== undefined ? (run.ms < 1000 ? `${Math.round(run.ms)} ms` : `${(run.ms / 1000).toFixed(1)} s`) : "";
  switch (run.status) {
    case "running":
      return total > 0 ? trans.__("Running: %1 of %2 nodes…", done, total) : trans.__("Running…");
    case "paused":
      return run.pausedAt ? trans.__("Paused before %1", run.pausedAt) : trans.__("Paused");
    case "ok":
      return took ? trans.__("Done in %1", took) : trans.__("Done");
    case "error":
      return took ? trans.__("Failed after %1", took) : trans.__("Failed");
    default:
      return trans.__("Stopped");
  }
}

/** A question set's state in words: the CLI's line while it runs, then how it ended. */
export function setStatusText(set: { status: string; text: string; done: number; total: number; failed: number }): string {
  switch (set.status) {
    case "running":
      return set.text || trans.__("Question set: starting…");
    case "ok":
      return trans.__("Question set done: %1 of %2 runs, %3 failed", set.done, set.total, set.failed);
    case "aborted":
      return trans.__("Question set stopped after %1 of %2 runs", set.done, set.total);
    default:
      return trans.__("Question set failed after %1 of %2 runs", set.done, set.total);
  }
}

/** The run buttons: what each starts, and its label and tooltip (translated when drawn). */
const RUN_BUTTONS: Array<{ kind: "all" | "to" | "from" | "only"; action: string; label: () => string; title: () => string }> = [
  { kind: "all", action: "run", label: () => trans.__("Run"), title: () => trans.__("Run the whole pipeline") },
  { kind: "to", action: "run-to", label: () => trans.__("Run to"), title: () => trans.__("Run up to the selected node") },
  { kind: "from", action: "run-from", label: () => trans.__("Run from"), title: () => trans.__("Re-run the selected node and everything downstream (upstream from cache)") },
  { kind: "only", action: "run-only", label: () => trans.__("Run node"), title: () => trans.__("Re-run only the selected node") },
];

export function Toolbar({ state, showRuns }: { state: EditorState; showRuns: () => void }) {
  const run = state.run;
  const active = state.active;
  const start = (o: RunOptions) => void state.start(o);
  const done = run ? Object.values(run.nodes).filter((b) => !["queued", "running", "paused"].includes(b.status)).length : 0;
  const total = run?.selected.length ?? 0;
  return (
    <div className="cf-toolbar" role="toolbar" aria-label={trans.__("Run controls")}>
      {state.linesAreQuestions ? (
        <textarea
          className="cf-question"
          rows={3}
          aria-label={trans.__("Questions, one per line")}
          placeholder={state.takesQuestionSet ? trans.__("Questions or claims, one per line") : trans.__("Questions or claims, one per line: the pipeline runs once for each")}
          value={state.question}
          onChange={(e) => ((state.question = e.target.value), state.emit())}
        />
      ) : (
        <input
          className="cf-question"
          type="text"
          aria-label={trans.__("Question")}
          placeholder={trans.__("Question or claim to run the pipeline on")}
          value={state.question}
          onChange={(e) => ((state.question = e.target.value), state.emit())}
          onKeyDown={(e) => e.key === "Enter" && !active && start({})}
        />
      )}
      {!state.takesQuestionSet && (
        <label className="cf-muted" title={trans.__("Run the pipeline once for each line of the box: a question set, each question its own run")}>
          <input type="checkbox" data-action="per-line" checked={state.perLine} disabled={active} onChange={(e) => state.setPerLine(e.target.checked)} />
          {trans.__("One a line")}
        </label>
      )}
      {state.linesAreQuestions && <span className="cf-muted">{trans._n("%1 question", "%1 questions", state.questionSet.length)}</span>}
      {RUN_BUTTONS.map(({ kind, action, label, title }) => {
        // Disabled, a button says why in its tooltip (the same question the commands ask).
        const why = state.cannotStart(kind);
        return (
          <button
            key={kind}
            className={`cf-button${kind === "all" ? " cf-primary" : ""}`}
            data-action={action}
            disabled={why !== undefined}
            onClick={() => (kind === "all" ? start({}) : state.startAtSelected(kind))}
            title={why ?? title()}
          >
            {label()}
          </button>
        );
      })}
      <button
        className="cf-button"
        data-action="step"
        disabled={!state.question.trim() || (state.perLine && !state.takesQuestionSet)}
        onClick={() => (run?.status === "paused" ? void state.control("step") : start({ step: true }))}
        title={trans.__("Run one node at a time")}
      >
        {trans.__("Step")}
      </button>
      {run?.status === "paused" && (
        <button className="cf-button" data-action="continue" onClick={() => void state.control("continue")}>
          {trans.__("Continue")}
        </button>
      )}
      <button className="cf-button" data-action="breakpoint" disabled={!state.selected} onClick={() => state.toggleBreakpoint()} title={trans.__("Toggle a breakpoint on the selected node")}>
        {trans.__("Breakpoint")}
      </button>
      <button className="cf-button cf-danger" data-action="stop" disabled={!active} onClick={() => void state.control("abort")}>
        {trans.__("Stop")}
      </button>
      <span className="cf-sep" />
      <button className="cf-button" data-action="layout" disabled={!!state.unreadable} onClick={() => state.layout()} title={trans.__("Arrange the nodes in layers, left to right, wrapped into rows")}>
        {trans.__("Auto-layout")}
      </button>
      {state.set && (
        <span className="cf-set-status" role="status" data-status={state.set.status} data-done={state.set.done}>
          {setStatusText(state.set)}
          {state.set.status === "running" && <progress max={state.set.total} value={state.set.done} aria-label={trans.__("Question set progress")} />}
        </span>
      )}
      <span className="cf-run-status" role="status" data-status={run?.status ?? "idle"} data-run={run?.runId ?? ""}>
        {run && (
          <>
            {run.readOnly ? `${trans.__("Stored run")}: ` : ""}
            {runStatusText(run, done, total)}
            {active && total > 0 && <progress max={total} value={done} aria-label={trans.__("Run progress")} />}
            {" · "}
            <button className="cf-link" data-action="show-run" title={trans.__("Show run %1 in the Runs tab", run.runId)} onClick={showRuns}>
              {trans.__("run %1", shortRunId(run.runId))}
            </button>
          </>
        )}
      </span>
    </div>
  );
}

/** A run id's distinctive tail ("20261124T184635Z-39e992" → "39e992"); the whole id is in the tooltip. */
export const shortRunId = (id: string) => /-([0-9a-f]{4,})$/.exec(id)?.[1] ?? id;
