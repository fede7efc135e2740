/**
 * The canvas's edges, drawn by the canvas instead of React Flow.
 *
 * React Flow renders each edge as a component with three store subscriptions, one of which works
 * out the edge's end points on every store change; while a node is dragged past the pane's edge the
 * store changes two or three times a frame. Here one `<svg>` holds every edge, and one subscription
 * redraws (sets `d` on) only the edges whose end nodes React Flow replaced, which in a drag is the
 * moved node's. The paths are React Flow's (`getEdgePosition`, `getBezierPath`), with its classes.
 * React Flow is given no edges: the document is the graph, and selecting and deleting edges happen
 * here.
 */
import { useStoreApi, type Edge, type InternalNode, type ReactFlowState } from "@xyflow/react";
import { getBezierPath, getEdgePosition, type ConnectionMode } from "@xyflow/system";
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import { createPortal } from "react-dom";
import type { FlowNode } from "./flow";
import { trans } from "./i18n";

/** The SVG path of an edge between two measured nodes, or undefined while either is unmeasured. */
export function edgePath(e: Edge, source: InternalNode | undefined, target: InternalNode | undefined, connectionMode: ConnectionMode): string | undefined {
  if (!source || !target) return undefined;
  const at = getEdgePosition({ id: e.id, sourceNode: source, sourceHandle: e.sourceHandle ?? null, targetNode: target, targetHandle: e.targetHandle ?? null, connectionMode });
  return at ? getBezierPath(at)[0] : undefined;
}

/** React Flow's element for things drawn in flow coordinates under the nodes (found once). */
function useUnderNodes(): Element | null {
  const store = useStoreApi();
  const [host, setHost] = useState<Element | null>(null);
  useEffect(() => {
    const find = () => {
      const el = store.getState().domNode?.querySelector(".react-flow__edgelabel-renderer");
      if (el) setHost(el);
      return !!el;
    };
    if (find()) return;
    const stop = store.subscribe(() => void (find() && stop()));
    return stop;
  }, [store]);
  return host;
}

export interface EdgeLayerProps {
  edges: Edge[];
  selected: ReadonlySet<string>;
  onSelect: (id: string, add: boolean) => void;
  onDelete: (ids: ReadonlySet<string>) => void;
}

export function EdgeLayer({ edges, selected, onSelect, onDelete }: EdgeLayerProps) {
  const store = useStoreApi<FlowNode>();
  const host = useUnderNodes();
  const groups = useRef(new Map<string, SVGGElement>());

  // After each render (the edge list changed), draw every edge; then, on each store change, only
  // those whose end nodes changed.
  useLayoutEffect(() => {
    if (!host) return;
    const drawnFrom = new Map<string, [InternalNode | undefined, InternalNode | undefined]>();
    const draw = (s: ReactFlowState<FlowNode>) => {
      for (const e of edges) {
        const source = s.nodeLookup.get(e.source);
        const target = s.nodeLookup.get(e.target);
        const last = drawnFrom.get(e.id);
        if (last && last[0] === source && last[1] === target) continue;
        drawnFrom.set(e.id, [source, target]);
        const d = edgePath(e, source, target, s.connectionMode);
        for (const path of groups.current.get(e.id)?.children ?? []) d ? path.setAttribute("d", d) : path.removeAttribute("d");
      }
    };
    draw(store.getState());
    return store.subscribe(draw);
  }, [edges, host, store]);

  if (!host) return null;
  const { noPanClassName } = store.getState();
  const onKeyDown = (id: string) => (ev: KeyboardEvent) => {
    if (ev.key === "Delete" || ev.key === "Backspace") onDelete(selected.size ? selected : new Set([id]));
    else if (ev.key === "Enter" || ev.key === " ") onSelect(id, ev.shiftKey);
    else return;
    ev.preventDefault();
  };
  const onClick = (id: string) => (ev: MouseEvent) => onSelect(id, ev.shiftKey || ev.metaKey || ev.ctrlKey);
  return createPortal(
    <svg className="cf-edges">
      {edges.map((e) => (
        <g
          key={e.id}
          ref={(g) => void (g ? groups.current.set(e.id, g) : groups.current.delete(e.id))}
          className={`react-flow__edge react-flow__edge-default selectable ${noPanClassName} cf-edge${selected.has(e.id) ? " selected" : ""}`}
          data-id={e.id}
          tabIndex={0}
          role="button"
          aria-label={trans.__("Edge %1.%2 → %3.%4", e.source, e.sourceHandle ?? "", e.target, e.targetHandle ?? "")}
          onClick={onClick(e.id)}
          onKeyDown={onKeyDown(e.id)}
        >
          <path className="react-flow__edge-path" style={{ stroke: e.style?.stroke }} />
          <path className="react-flow__edge-interaction" fill="none" strokeOpacity={0} strokeWidth={20} />
        </g>
      ))}
    </svg>,
    host,
  );
}
