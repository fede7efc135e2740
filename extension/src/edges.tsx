/**
 * The canvas's edges, drawn by the canvas instead of React Flow.
 *
 * React Flow renders each edge as a component with three store subscriptions, one of which works
 * out the edge's end points on every store change; while a node is dragged past the pane's edge the
 * store changes two or three times a frame. Here one `<svg>` holds every edge, and one subscription
 * works out the paths when a node moved or was measured, and sets `d` only where a path changed
 * (in a drag, the moved node's edges and those whose lane it pushes). The paths are React Flow's
 * curves (`getEdgePosition`, `getBezierPath`), or lanes around the nodes (routes.ts), with its classes.
 * React Flow is given no edges: the document is the graph, and selecting and deleting edges happen
 * here.
 */
import { useStoreApi, type Edge, type InternalNode, type ReactFlowState } from "@xyflow/react";
import { getBezierPath, getEdgePosition, type ConnectionMode } from "@xyflow/system";
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import { createPortal } from "react-dom";
import type { FlowNode } from "./flow";
import { trans } from "./i18n";
import { laneFor, lanePath, type Box } from "./routes";

/** A measured node's box in flow coordinates. */
export function boxOf(n: InternalNode): Box {
  const { x, y } = n.internals.positionAbsolute;
  return { left: x, top: y, right: x + (n.measured.width ?? 0), bottom: y + (n.measured.height ?? 0) };
}

/**
 * The SVG path of an edge between two measured nodes, or undefined while either is unmeasured: a
 * curve, or, where a curve would cross a node (an edge running back to the next row, or over a node
 * of its row), a lane clear of them all (routes.ts).
 */
export function edgePath(e: Edge, source: InternalNode | undefined, target: InternalNode | undefined, connectionMode: ConnectionMode, others: Box[] = []): string | undefined {
  if (!source || !target) return undefined;
  const at = getEdgePosition({ id: e.id, sourceNode: source, sourceHandle: e.sourceHandle ?? null, targetNode: target, targetHandle: e.targetHandle ?? null, connectionMode });
  if (!at) return undefined;
  const lane = laneFor(at, boxOf(source), boxOf(target), others);
  return lane === undefined ? getBezierPath(at)[0] : lanePath(at, lane);
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

  // After each render (the edge list changed), draw every edge; then, on each store change that
  // moved or measured a node, work out every path again (a lane depends on every node) and set
  // `d` only on the edges whose path changed.
  useLayoutEffect(() => {
    if (!host) return;
    let nodesThen: InternalNode[] = [];
    const drawn = new Map<string, string | undefined>();
    const draw = (s: ReactFlowState<FlowNode>) => {
      const nodes = [...s.nodeLookup.values()];
      if (nodes.length === nodesThen.length && nodes.every((n, i) => n === nodesThen[i])) return;
      nodesThen = nodes;
      const boxes = new Map(nodes.map((n) => [n.id, boxOf(n)]));
      for (const e of edges) {
        const others = [...boxes].flatMap(([id, b]) => (id === e.source || id === e.target ? [] : [b]));
        const d = edgePath(e, s.nodeLookup.get(e.source), s.nodeLookup.get(e.target), s.connectionMode, others);
        if (drawn.has(e.id) && drawn.get(e.id) === d) continue;
        drawn.set(e.id, d);
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
