/** The graph canvas: React Flow over the document, typed port handles, refusals explained. */
import { Controls, ReactFlow, ReactFlowProvider, useNodesInitialized, useReactFlow, type Connection, type Edge, type IsValidConnection, type NodeChange, type NodeProps } from "@xyflow/react";
import { memo, useCallback, useEffect, useRef, useState, type DragEvent } from "react";
import { openingView } from "./opening";
import { trans } from "./i18n";
import { toEdges, toFlow, type FlowNode } from "./flow";
import { EdgeLayer } from "./edges";
import { useEdgeAutopan } from "./autopan";
import { Minimap } from "./minimap";
import { ConnectingState, Port } from "./port";
import { addNode, checkConnection, connect, nodeSpec, portColor, removeEdges } from "./model";
import { tail } from "./render";
import { badgeStatus } from "./run-state";
import type { EditorState } from "./state";
import type { NodeProgress } from "@citeflow/core/browser";

export const DRAG_MIME = "application/x-citeflow-node-type";

function badgeText(b: NodeProgress): string {
  if (b.status === "done") return `${badgeStatus(b) === "cached" ? trans.__("cached") : trans.__("done")}${b.ms !== undefined ? ` ${Math.round(b.ms)} ms` : ""}`;
  if (b.status === "error") return trans.__("error");
  return trans.__(b.status);
}

const CiteflowNode = memo(function CiteflowNode({ data, selected }: NodeProps<FlowNode>) {
  const { node, spec, badge, breakpoint, unfed, corrected, onPort } = data;
  const missing = new Set(unfed ? unfed.split(",") : []);
  const inputs = Object.entries(spec?.inputs ?? {});
  const outputs = Object.entries(spec?.outputs ?? {});
  const rows = Math.max(inputs.length, outputs.length, 1);
  return (
    <div className={`cf-node${selected ? " cf-selected" : ""}${spec ? "" : " cf-unknown"}`} data-node={node.id} title={spec?.description ?? trans.__("unknown node type %1", node.type)}>
      <div className="cf-node-head">
        {breakpoint && <span className="cf-breakpoint" title={trans.__("breakpoint")} />}
        <span className="cf-node-id">{node.id}</span>
        <span className="cf-node-type">{node.type}</span>
      </div>
      {badge && (
        <div className={`cf-badge cf-badge-${badgeStatus(badge)}`} data-status={badgeStatus(badge)} title={badge.error ?? ""}>
          {badgeText(badge)}
          {badge.error ? `: ${badge.error.slice(0, 80)}` : ""}
        </div>
      )}
      {badge?.status === "running" && badge.progress && <div className="cf-progress-text">{tail(badge.progress, 120)}</div>}
      {badge?.summary && badge.status === "done" && (
        <div className="cf-node-summary" title={badge.summary}>
          {badge.summary}
        </div>
      )}
      {badge?.warnings?.length && badge.status === "done" ? (
        <div className="cf-node-warnings" role="note" title={badge.warnings.join("\n")}>
          ⚠ {badge.warnings.join(" · ")}
        </div>
      ) : null}
      {corrected > 0 && (
        <div className="cf-node-corrected" title={trans.__("Corrections recorded on this run (stored beside it; the run is unchanged)")}>
          ✎ {trans._n("%1 corrected", "%1 corrected", corrected)}
        </div>
      )}
      {badge?.models && badge.status === "done" && (
        <div className="cf-node-models" title={trans.__("Models: %1", badge.models.join(", "))}>
          {badge.models.join(" · ")}
        </div>
      )}
      <div className="cf-ports" style={{ height: rows * 20 }}>
        {inputs.map(([port, p], i) => (
          <div key={port} className={`cf-port-label cf-in${missing.has(port) ? " cf-unfed" : ""}`} style={{ top: i * 20 }}>
            <Port
              type="target"
              id={port}
              className="cf-port"
              data-type={p.type}
              style={{ background: portColor(p.type) }}
              title={`${port}: ${p.type}${p.optional ? " (optional)" : missing.has(port) ? ` — ${trans.__("required, not connected: the pipeline will not run")}` : ""}`}
            />
            {port}
          </div>
        ))}
        {outputs.map(([port, p], i) => (
          <div key={port} className="cf-port-label cf-out" style={{ top: i * 20 }} data-port={port} title={trans.__("Inspect %1", port)} onClick={() => onPort(node.id, port)}>
            {port}
            <Port type="source" id={port} className="cf-port" data-type={p.type} style={{ background: portColor(p.type) }} title={`${port}: ${p.type}`} />
          </div>
        ))}
      </div>
    </div>
  );
});

const nodeTypes = { citeflow: CiteflowNode };

const NONE: ReadonlySet<string> = new Set();

function sameSet(ids: string[], set: ReadonlySet<string>): boolean {
  return ids.length === set.size && ids.every((id) => set.has(id));
}

/**
 * React Flow holds the nodes itself (uncontrolled): a drag moves one node in its store without a
 * React pass over this component, and the document reaches the store through `sync` only when it
 * changes (an edit, a selection, a run's badges). The edges are the canvas's own (`EdgeLayer`).
 */
function Flow({ state }: { state: EditorState }) {
  const flow = useReactFlow<FlowNode, Edge>();
  const [initial] = useState(() => toFlow(state));
  // toEdges keeps the previous list when no edge changed, and React then skips the render.
  const [edges, setEdges] = useState(() => toEdges(state));
  const [selectedEdges, setSelectedEdges] = useState(NONE);
  const [refusal, setRefusal] = useState<string | undefined>();
  const autopan = useEdgeAutopan();
  // Once every node of the opened file is measured: the opening view (readable, its start in view).
  const pane = useRef<HTMLDivElement>(null);
  const measured = useNodesInitialized();
  const opened = useRef(initial.length === 0);
  // Whether the view shows the whole graph, as of its last move: then it keeps showing it as cards grow.
  const whole = useRef(false);
  const allInView = useCallback(() => {
    const el = pane.current;
    if (!el) return false;
    const b = flow.getNodesBounds(flow.getNodes());
    const { x, y, zoom } = flow.getViewport();
    return b.x * zoom + x >= -1 && b.y * zoom + y >= -1 && (b.x + b.width) * zoom + x <= el.clientWidth + 1 && (b.y + b.height) * zoom + y <= el.clientHeight + 1;
  }, [flow]);
  useEffect(() => {
    if (!measured || opened.current || !pane.current) return;
    opened.current = true;
    const { clientWidth: width, clientHeight: height } = pane.current;
    void flow.setViewport(openingView(flow.getNodesBounds(flow.getNodes()), { width, height })).then(() => (whole.current = allInView()));
  }, [measured, flow, allInView]);
  const onMoveEnd = useCallback(() => void (whole.current = allInView()), [allInView]);
  // Cards grow with what a run gives them (summaries, models, badges): a view that showed the whole graph fits it again,
  // clear of the pane's edges and the zoom controls, instead of leaving cards past them.
  const refit = useRef(0);
  const resized = useCallback(() => {
    if (!opened.current || !whole.current || refit.current) return;
    refit.current = requestAnimationFrame(() => {
      refit.current = 0;
      if (!allInView()) void flow.fitView({ padding: 0.08, maxZoom: 1 });
    });
  }, [flow, allInView]);
  useEffect(() => {
    // Edges depend only on the document and the catalogue: a selection or a run's badges skip them.
    let edgesFrom: [EditorState["doc"], EditorState["catalogue"]] | undefined;
    const sync = () => {
      flow.setNodes((prev) => toFlow(state, prev));
      if (edgesFrom?.[0] === state.doc && edgesFrom[1] === state.catalogue) return;
      edgesFrom = [state.doc, state.catalogue];
      setEdges((prev) => toEdges(state, prev));
    };
    state.changed.connect(sync);
    // A change between the first render and this effect (a run opened meanwhile) is not missed.
    sync();
    return () => void state.changed.disconnect(sync);
  }, [state, flow]);

  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) => {
      const moved = new Map<string, { x: number; y: number }>();
      let picked: string | undefined;
      let selecting = false;
      if (changes.some((c) => c.type === "dimensions")) resized();
      for (const c of changes) {
        if (c.type === "position" && c.dragging === false && c.position) moved.set(c.id, c.position);
        if (c.type === "select") {
          selecting = true;
          if (c.selected) picked = c.id;
        }
      }
      // The drop paints first (React Flow's store already has the positions); the document edit
      // (file model, undo entry, editor redraw) runs in a task after that frame: one edit however
      // many nodes moved together.
      if (moved.size) requestAnimationFrame(() => setTimeout(() => state.moveNodes(moved)));
      if (selecting) {
        // React Flow has applied the changes to its own nodes (they are uncontrolled): its selected
        // flags are the selection, whether a click, a Ctrl/Cmd-click or a Shift-drag box made it.
        const ids = flow.getNodes().flatMap((n) => (n.selected ? [n.id] : []));
        if (picked !== undefined || !sameSet(ids, state.selection)) state.setSelection(ids, picked);
        setSelectedEdges(NONE);
      }
    },
    [state, flow, resized],
  );

  const isValidConnection: IsValidConnection = useCallback(
    (c) => {
      if (!state.catalogue || !c.source || !c.target) return false;
      const r = checkConnection(state.doc, state.catalogue, `${c.source}.${c.sourceHandle}`, `${c.target}.${c.targetHandle}`);
      setRefusal(r.ok ? undefined : trans.__("Cannot connect %1.%2 → %3.%4: %5", c.source, c.sourceHandle ?? "", c.target, c.targetHandle ?? "", r.reason));
      return r.ok;
    },
    [state],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      if (!state.catalogue) return;
      try {
        state.edit(connect(state.doc, state.catalogue, `${c.source}.${c.sourceHandle}`, `${c.target}.${c.targetHandle}`));
        setRefusal(undefined);
      } catch (e) {
        setRefusal((e as Error).message);
      }
    },
    [state],
  );

  const onDrop = useCallback(
    (e: DragEvent) => {
      const type = e.dataTransfer.getData(DRAG_MIME);
      const spec = nodeSpec(state.catalogue, type);
      if (!spec) return;
      e.preventDefault();
      const { doc, id } = addNode(state.doc, spec, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
      state.edit(doc);
      state.select(id);
    },
    [state, flow],
  );

  // Stable handlers: a new function on every render makes React Flow update its store each time.
  // A right-click on a node outside the selection selects it alone, as a click would; on one inside
  // it, the selection stays and that node becomes the one the context menu's commands act on.
  const onNodeContextMenu = useCallback((_: unknown, n: FlowNode) => (state.selection.has(n.id) ? state.setSelection(state.selection, n.id) : state.select(n.id)), [state]);
  const onNodesDelete = useCallback((ns: FlowNode[]) => state.deleteNodes(ns.map((n) => n.id)), [state]);
  // A click on the empty canvas takes the keyboard from the question box, so Ctrl+Z undoes the last
  // graph edit (the canvas's keybindings) rather than the typing in the box.
  const onPaneClick = useCallback(
    (e: { target: EventTarget }) => {
      state.select(undefined);
      setRefusal(undefined);
      setSelectedEdges(NONE);
      (e.target as HTMLElement).closest<HTMLElement>(".react-flow")?.focus({ preventScroll: true });
    },
    [state],
  );
  const onSelectEdge = useCallback(
    (id: string, add: boolean) => {
      state.select(undefined);
      // A plain click selects the edge alone; Shift-click adds it, or takes it out if it was in.
      setSelectedEdges((prev) => {
        const next = new Set(add ? prev : []);
        if (add && prev.has(id)) next.delete(id);
        else next.add(id);
        return next;
      });
    },
    [state],
  );
  const onDeleteEdges = useCallback((ids: ReadonlySet<string>) => (state.edit(removeEdges(state.doc, ids)), setSelectedEdges(NONE)), [state]);

  return (
    <div className="cf-canvas" ref={pane} onDragOver={(e) => (e.preventDefault(), (e.dataTransfer.dropEffect = "copy"))} onDrop={onDrop}>
      {/* No background grid: its pattern moves with the view, so every frame of a pan (or of autopan
          while a node is dragged past the edge) repainted the whole pane, nodes included. */}
      <ConnectingState>
        <ReactFlow<FlowNode, Edge>
          defaultNodes={initial}
          nodeTypes={nodeTypes}
          onNodesChange={onNodesChange}
          onMoveEnd={onMoveEnd}
          onConnect={onConnect}
          isValidConnection={isValidConnection}
          onNodesDelete={onNodesDelete}
          onNodeContextMenu={onNodeContextMenu}
          onPaneClick={onPaneClick}
          tabIndex={-1}
          autoPanOnNodeDrag={false}
          {...autopan}
          deleteKeyCode={["Delete", "Backspace"]}
          minZoom={0.1}
          proOptions={{ hideAttribution: true }}
        >
          <EdgeLayer edges={edges} selected={selectedEdges} onSelect={onSelectEdge} onDelete={onDeleteEdges} />
          <Minimap />
          <Controls />
        </ReactFlow>
      </ConnectingState>
      {refusal && (
        <div className="cf-refusal" role="tooltip">
          {refusal}
        </div>
      )}
    </div>
  );
}

/** The canvas redraws through its own subscription to the state, not with the editor around it. */
export const Canvas = memo(function Canvas({ state }: { state: EditorState }) {
  return (
    <ReactFlowProvider>
      <Flow state={state} />
    </ReactFlowProvider>
  );
});
