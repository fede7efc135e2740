/** The document as React Flow nodes and edges, keeping every object that did not change. */
import { unfedInputs, type CatalogueNode, type GraphNode } from "@citeflow/core/browser";
import type { Edge, Node } from "@xyflow/react";
import { edgeId, nodeSpec, portColor, splitRef } from "./model";
import type { NodeProgress } from "@citeflow/core/browser";
import type { EditorState } from "./state";

export interface NodeData extends Record<string, unknown> {
  onPort: (node: string, port: string) => void;
  node: GraphNode;
  spec: CatalogueNode | undefined;
  badge: NodeProgress | undefined;
  breakpoint: boolean;
  /** Its required inputs that no edge feeds, comma-separated (core's `unfedInputs`): marked before anyone runs. */
  unfed: string;
  /** How many corrections the run shown has on this node's output. */
  corrected: number;
}

export type FlowNode = Node<NodeData, "citeflow">;

/** What the mapping reads of an editor's state. */
export type FlowSource = Pick<EditorState, "doc" | "catalogue" | "run" | "breakpoints" | "selection" | "onPort">;

/**
 * React Flow nodes for the document. A node whose graph node, spec, badge, breakpoint and selection
 * are unchanged keeps its previous object, so React skips it and React Flow keeps its measured size
 * (a fresh object without one is hidden until its element is measured again).
 */
export function toFlow(state: FlowSource, prev: FlowNode[] = []): FlowNode[] {
  const old = new Map(prev.map((n) => [n.id, n]));
  const fed = new Set(state.doc.edges.map((e) => e.to));
  const next = state.doc.nodes.map((n): FlowNode => {
    const spec = nodeSpec(state.catalogue, n.type);
    const unfed = spec ? unfedInputs(spec.inputs, (port) => fed.has(`${n.id}.${port}`)).join(",") : "";
    const corrected = state.run?.corrections?.filter((c) => c.nodeId === n.id).length ?? 0;
    const badge = state.run?.nodes[n.id];
    const breakpoint = state.breakpoints.has(n.id);
    const selected = state.selection.has(n.id);
    const o = old.get(n.id);
    const sameEntry = o?.data.node === n;
    if (o && sameEntry && o.data.spec === spec && o.data.badge === badge && o.data.breakpoint === breakpoint && o.data.unfed === unfed && o.data.corrected === corrected && !!o.selected === selected)
      return o;
    return {
      id: n.id,
      type: "citeflow",
      // A node whose document entry is unchanged keeps React Flow's position: a badge arriving
      // while it is dragged does not snap it back to where the document last put it.
      position: o && sameEntry ? o.position : { x: n.ui?.x ?? 0, y: n.ui?.y ?? 0 },
      selected,
      data: { node: n, spec, badge, breakpoint, unfed, corrected, onPort: state.onPort },
      ...(o?.measured ? { measured: o.measured } : {}),
    };
  });
  return sameItems(next, prev) ? prev : next;
}

/**
 * The document's edges, in React Flow's edge shape, for the canvas's edge layer; the previous list
 * (and each unchanged edge) is kept when nothing changed.
 */
export function toEdges(state: FlowSource, prev: Edge[] = []): Edge[] {
  const types = new Map(state.doc.nodes.map((n) => [n.id, nodeSpec(state.catalogue, n.type)]));
  const old = new Map(prev.map((e) => [e.id, e]));
  const next = state.doc.edges.map((e): Edge => {
    const f = splitRef(e.from);
    const t = splitRef(e.to);
    const stroke = portColor(types.get(f.node)?.outputs[f.port]?.type ?? "Any");
    const id = edgeId(e);
    const o = old.get(id);
    if (o && o.style?.stroke === stroke) return o;
    return { id, source: f.node, sourceHandle: f.port, target: t.node, targetHandle: t.port, style: { stroke } };
  });
  return sameItems(next, prev) ? prev : next;
}

function sameItems<T>(a: T[], b: T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
