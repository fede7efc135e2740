/** The pipeline editor: toolbar (question, run controls), palette, canvas, and the node / runs panel. */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { Canvas } from "./canvas";
import { Fold, Folded } from "./fold";
import { trans } from "./i18n";
import { NodeInspector } from "./inspector";
import { addNode } from "./model";
import { Palette } from "./palette";
import { useSideWidth } from "./resize";
import { RunsPanel } from "./runs";
import type { EditorState } from "./state";
import { Toolbar } from "./toolbar";

function useRedraw(state: EditorState) {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    state.changed.connect(bump);
    bump();
    return () => void state.changed.disconnect(bump);
  }, [state]);
}

const NO_NODES: never[] = [];

export function Editor({ state }: { state: EditorState }) {
  useRedraw(state);
  const [tab, setTab] = useState<"node" | "runs">("node");
  // Either side panel folds to a strip, leaving the canvas the room.
  const [paletteOpen, setPaletteOpen] = useState(true);
  const [sideOpen, setSideOpen] = useState(true);
  const showRuns = useCallback(() => (setSideOpen(true), setTab("runs")), []);
  const body = useRef<HTMLDivElement>(null);
  const side = useSideWidth(useCallback(() => body.current, []));
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
          <span>{state.error}</span>
          <button className="cf-link cf-close" data-action="dismiss-error" aria-label={trans.__("Dismiss")} title={trans.__("Dismiss")} onClick={() => state.dismissError()}>
            ×
          </button>
        </div>
      )}
      {state.unreadable ? (
        <Unreadable why={state.unreadable} openAsText={state.openAsText} />
      ) : (
        <div className="cf-body" ref={body}>
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
            <aside className="cf-side" style={{ width: side.width }}>
              {side.edge}
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
