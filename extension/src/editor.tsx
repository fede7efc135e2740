/** The pipeline editor: toolbar (question, run controls), palette, canvas, and the node / runs panel. */
import { useCallback, useEffect, useReducer, useState } from "react";
import { Canvas } from "./canvas";
import { trans } from "./i18n";
import { NodeInspector } from "./inspector";
import { addNode } from "./model";
import { Palette } from "./palette";
import { RunsPanel } from "./runs";
import type { EditorState, RunOptions } from "./state";

function useRedraw(state: EditorState) {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    state.changed.connect(bump);
    bump();
    return () => void state.changed.disconnect(bump);
  }, [state]);
}

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

function Toolbar({ state, showRuns }: { state: EditorState; showRuns: () => void }) {
  const run = state.run;
  const active = state.active;
  const start = (o: RunOptions) => void state.start(o);
  const done = run ? Object.values(run.badges).filter((b) => !["queued", "running", "paused"].includes(b.status)).length : 0;
  const total = run?.selected.length ?? 0;
  return (
    <div className="cf-toolbar" role="toolbar" aria-label={trans.__("Run controls")}>
      {state.takesQuestionSet ? (
        <textarea
          className="cf-question"
          rows={3}
          aria-label={trans.__("Questions, one per line")}
          placeholder={trans.__("Questions or claims, one per line")}
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
      {state.takesQuestionSet && <span className="cf-muted">{trans._n("%1 question", "%1 questions", state.questionSet.length)}</span>}
      <button className="cf-button cf-primary" data-action="run" disabled={!state.canStart("all")} onClick={() => start({})} title={trans.__("Run the whole pipeline")}>
        {trans.__("Run")}
      </button>
      <button className="cf-button" data-action="run-to" disabled={!state.canStart("to")} onClick={() => state.startAtSelected("to")} title={trans.__("Run up to the selected node")}>
        {trans.__("Run to")}
      </button>
      <button className="cf-button" data-action="run-from" disabled={!state.canStart("from")} onClick={() => state.startAtSelected("from")} title={trans.__("Re-run the selected node and everything downstream (upstream from cache)")}>
        {trans.__("Run from")}
      </button>
      <button className="cf-button" data-action="run-only" disabled={!state.canStart("only")} onClick={() => state.startAtSelected("only")} title={trans.__("Re-run only the selected node")}>
        {trans.__("Run node")}
      </button>
      <button className="cf-button" data-action="step" disabled={!state.question.trim()} onClick={() => (run?.status === "paused" ? void state.control("step") : start({ step: true }))} title={trans.__("Run one node at a time")}>
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
      <button className="cf-button" data-action="layout" disabled={!!state.unreadable} onClick={() => state.layout()} title={trans.__("Arrange the nodes left to right")}>
        {trans.__("Auto-layout")}
      </button>
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

const NO_NODES: never[] = [];

export function Editor({ state }: { state: EditorState }) {
  useRedraw(state);
  const [tab, setTab] = useState<"node" | "runs">("node");
  // Either side panel folds to a strip, leaving the canvas the room.
  const [paletteOpen, setPaletteOpen] = useState(true);
  const [sideOpen, setSideOpen] = useState(true);
  const showRuns = useCallback(() => (setSideOpen(true), setTab("runs")), []);
  // Stable props: the palette and the canvas (both memoised) skip the redraw of every edit.
  const addAtCentre = useCallback(
    (spec: Parameters<typeof addNode>[1]) => {
      const xs = state.doc.nodes.map((n) => n.ui?.x ?? 0);
      const { doc, id } = addNode(state.doc, spec, { x: (xs.length ? Math.max(...xs) : 0) + 260, y: 100 });
      state.edit(doc);
      state.select(id);
    },
    [state],
  );
  return (
    <div className="cf-editor">
      <Toolbar state={state} showRuns={showRuns} />
      {state.error && (
        <div className="cf-error cf-banner" role="alert">
          {state.error}
        </div>
      )}
      {state.unreadable ? (
        <Unreadable why={state.unreadable} openAsText={state.openAsText} />
      ) : (
        <div className="cf-body">
          {paletteOpen ? (
            <div className="cf-palette-panel">
              <Fold side="left" label={trans.__("Hide the node palette")} onClick={() => setPaletteOpen(false)} />
              <Palette nodes={state.catalogue?.nodes ?? NO_NODES} onAdd={addAtCentre} />
            </div>
          ) : (
            <Folded side="left" label={trans.__("Nodes")} title={trans.__("Show the node palette")} onClick={() => setPaletteOpen(true)} />
          )}
          {state.loaded ? <Canvas state={state} /> : <div className="cf-canvas cf-muted">{trans.__("Starting the Citeflow kernel…")}</div>}
          {!sideOpen ? (
            <Folded side="right" label={tab === "runs" ? trans.__("Runs") : trans.__("Node")} title={trans.__("Show the side panel")} onClick={() => setSideOpen(true)} />
          ) : (
          <aside className="cf-side">
            <div className="cf-tabs" role="tablist">
              <Fold side="right" label={trans.__("Hide the side panel")} onClick={() => setSideOpen(false)} />
              <button role="tab" aria-selected={tab === "node"} onClick={() => setTab("node")}>
                {trans.__("Node")}
              </button>
              <button role="tab" aria-selected={tab === "runs"} onClick={() => setTab("runs")}>
                {trans.__("Runs")}
              </button>
            </div>
            {tab === "runs" ? (
              <RunsPanel state={state} />
            ) : state.selected ? (
              <>
                {state.selection.size > 1 && (
                  <p className="cf-muted cf-selection-count" data-count={state.selection.size}>
                    {trans.__("%1 nodes selected; showing %2", state.selection.size, state.selected)}
                  </p>
                )}
                <NodeInspector key={state.selected} state={state} nodeId={state.selected} />
              </>
            ) : (
              <p className="cf-muted">{trans.__("Select a node to see its params and outputs.")}</p>
            )}
          </aside>
          )}
        </div>
      )}
    </div>
  );
}

/** The button that folds a side panel away. */
function Fold({ side, label, onClick }: { side: "left" | "right"; label: string; onClick: () => void }) {
  return (
    <button className={`cf-fold cf-fold-${side}`} data-action={`fold-${side}`} aria-label={label} title={label} onClick={onClick}>
      {side === "left" ? "«" : "»"}
    </button>
  );
}

/** A folded side panel: a narrow strip that opens it again. */
function Folded({ side, label, title, onClick }: { side: "left" | "right"; label: string; title: string; onClick: () => void }) {
  return (
    <button className={`cf-folded cf-folded-${side}`} data-action={`unfold-${side}`} aria-label={title} title={title} onClick={onClick}>
      <span>{side === "left" ? "»" : "«"}</span>
      <span className="cf-folded-label">{label}</span>
    </button>
  );
}

/** In place of the canvas while the file does not read: what is wrong and where, and a way to fix it. */
function Unreadable({ why, openAsText }: { why: string; openAsText: (() => void) | undefined }) {
  return (
    <div className="cf-unreadable" role="alert">
      <h3>{trans.__("This file does not read as a Citeflow pipeline")}</h3>
      <pre className="cf-error">{why}</pre>
      <p className="cf-muted">{trans.__("The editor draws it again as soon as the file reads; until then it neither runs it nor writes to it.")}</p>
      {openAsText && (
        <button className="cf-button cf-primary" onClick={openAsText}>
          {trans.__("Open in the text editor")}
        </button>
      )}
    </div>
  );
}
