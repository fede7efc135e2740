/**
 * The canvas's background dots. React Flow draws them `gap × zoom` screen pixels apart, so a
 * zoomed-out 100-node graph packs tens of thousands of dots into the pane, and every frame that
 * pans it (autopan while a node is dragged past the edge, a pan, a zoom) redraws them all. Here the
 * gap doubles until the dots are at least `minPx` apart on screen, and the dots grow with the gap,
 * so the grid looks alike at every zoom and costs at most (pane size / minPx)² dots.
 */
export const GRID = { gap: 20, size: 1, minPx: 16 };

/** The gap (in flow units) for a zoom; a zoom ≤ 0 or NaN (a store not yet measured) keeps the base gap. */
export function dotGap(zoom: number, { gap, minPx } = GRID): number {
  let g = gap;
  if (zoom > 0) while (g * zoom < minPx) g *= 2;
  return g;
}
