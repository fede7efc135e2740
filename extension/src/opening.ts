/**
 * Where the canvas looks when a pipeline opens: the whole graph when it fits at a zoom where node
 * titles and ports read (READABLE_ZOOM or more, never above 1), else that zoom with the graph's
 * start (its left edge, where the inputs are) in view and the minimap showing the rest. Fitting a
 * long pipeline whole put 8 nodes in a strip at 0.4 zoom, 4-px text.
 */
export const READABLE_ZOOM = 0.9;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function openingView(graph: Box, pane: { width: number; height: number }, pad = 24): { x: number; y: number; zoom: number } {
  if (graph.width <= 0 || graph.height <= 0 || pane.width <= 2 * pad || pane.height <= 2 * pad) return { x: pad, y: pad, zoom: 1 };
  const fit = Math.min((pane.width - 2 * pad) / graph.width, (pane.height - 2 * pad) / graph.height);
  const zoom = Math.min(1, Math.max(READABLE_ZOOM, fit));
  const w = graph.width * zoom;
  const h = graph.height * zoom;
  // Centred on an axis where the graph fits; on one where it does not, its start is at the padding.
  const x = w <= pane.width - 2 * pad ? (pane.width - w) / 2 : pad;
  const y = h <= pane.height - 2 * pad ? (pane.height - h) / 2 : pad;
  return { x: x - graph.x * zoom, y: y - graph.y * zoom, zoom };
}
