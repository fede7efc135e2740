/**
 * Where an edge runs when a curve would cross a node: out of its source, along a horizontal lane
 * clear of every node, and into its target. A wrapped layout's edges from a row's end back to the
 * next row's start, and edges that skip over a node in their row, take such a lane; the rest stay
 * React Flow's curves. Pure geometry, in flow coordinates.
 */

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface Ends {
  sourceX: number;
  sourceY: number;
  targetX: number;
  targetY: number;
}

/** How far an edge runs straight out of its source and into its target before it turns. */
export const STUB = 16;
/** How far a lane keeps from the nodes it passes. */
const CLEARANCE = 12;

const crossesRow = (b: Box, y: number, x0: number, x1: number) => b.top - CLEARANCE / 2 < y && y < b.bottom + CLEARANCE / 2 && b.left < x1 && x0 < b.right;

/** The lane from `lane` on, moved past every box its horizontal run would cross, in `dir` (+1 down, −1 up). */
function settle(lane: number, dir: 1 | -1, boxes: Box[], x0: number, x1: number): number {
  for (let i = 0; i < boxes.length; i++) {
    const hit = boxes.filter((b) => crossesRow(b, lane, x0, x1));
    if (!hit.length) return lane;
    lane = dir > 0 ? Math.max(...hit.map((b) => b.bottom)) + CLEARANCE : Math.min(...hit.map((b) => b.top)) - CLEARANCE;
  }
  return lane;
}

/**
 * The height of the lane an edge takes, or undefined when a curve is clear: an edge that runs
 * forward with no other node between its ends stays a curve; one that runs back (its target left
 * of its source) or over another node takes the nearest clear lane.
 */
export function laneFor(at: Ends, source: Box, target: Box, others: Box[]): number | undefined {
  const x0 = Math.min(at.sourceX, at.targetX) - STUB;
  const x1 = Math.max(at.sourceX, at.targetX) + STUB;
  const all = [source, target, ...others];
  if (at.targetX > at.sourceX) {
    const band = { left: at.sourceX, right: at.targetX, top: Math.min(at.sourceY, at.targetY) - 6, bottom: Math.max(at.sourceY, at.targetY) + 6 };
    const between = others.filter((b) => b.left < band.right && band.left < b.right && b.top < band.bottom && band.top < b.bottom);
    if (!between.length) return undefined;
    const below = settle(Math.max(...between.map((b) => b.bottom)) + CLEARANCE, 1, all, x0, x1);
    const above = settle(Math.min(...between.map((b) => b.top)) - CLEARANCE, -1, all, x0, x1);
    const detour = (y: number) => Math.abs(y - at.sourceY) + Math.abs(y - at.targetY);
    return detour(above) < detour(below) ? above : below;
  }
  // Back: through the gap between the two nodes' rows, or below both when they share a row.
  if (target.top >= source.bottom) return settle((source.bottom + target.top) / 2, 1, all, x0, x1);
  if (source.top >= target.bottom) return settle((target.bottom + source.top) / 2, -1, all, x0, x1);
  return settle(Math.max(source.bottom, target.bottom) + CLEARANCE, 1, all, x0, x1);
}

/** The SVG path out of the source, along the lane and into the target, its corners rounded. */
export function lanePath(at: Ends, lane: number, radius = 8): string {
  const points: Array<[number, number]> = [
    [at.sourceX, at.sourceY],
    [at.sourceX + STUB, at.sourceY],
    [at.sourceX + STUB, lane],
    [at.targetX - STUB, lane],
    [at.targetX - STUB, at.targetY],
    [at.targetX, at.targetY],
  ];
  let d = `M ${points[0]![0]} ${points[0]![1]}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [px, py] = points[i - 1]!;
    const [x, y] = points[i]!;
    const [nx, ny] = points[i + 1]!;
    // Each corner's radius is at most half of either side it joins, so short sides stay straight.
    const r = Math.min(radius, Math.hypot(x - px, y - py) / 2, Math.hypot(nx - x, ny - y) / 2);
    const into = (ax: number, ay: number, bx: number, by: number, len: number) => {
      const l = Math.hypot(bx - ax, by - ay) || 1;
      return [bx + ((ax - bx) / l) * len, by + ((ay - by) / l) * len];
    };
    const [ax, ay] = into(px, py, x, y, r);
    const [bx, by] = into(nx, ny, x, y, r);
    d += ` L ${ax} ${ay} Q ${x} ${y} ${bx} ${by}`;
  }
  const [lx, ly] = points[points.length - 1]!;
  return d + ` L ${lx} ${ly}`;
}
