/** Edge lanes: where an edge runs when a curve would cross a node. */
import { describe, expect, it } from "vitest";
import { laneFor, lanePath, STUB, type Box } from "../../extension/lib/routes.js";

const box = (left: number, top: number, width = 200, height = 100): Box => ({ left, top, right: left + width, bottom: top + height });
/** Ends of an edge from a's right side to b's left side, at each one's middle. */
const ends = (a: Box, b: Box) => ({ sourceX: a.right, sourceY: (a.top + a.bottom) / 2, targetX: b.left, targetY: (b.top + b.bottom) / 2 });
const clear = (lane: number, boxes: Box[]) => boxes.every((b) => lane < b.top || lane > b.bottom);

describe("edge lanes", () => {
  const a = box(0, 0);
  const b = box(270, 0);
  const c = box(540, 0);

  it("keeps a curve between neighbours with nothing between them", () => {
    expect(laneFor(ends(a, b), a, b, [c])).toBeUndefined();
    // A node elsewhere in the row, or in another row, is not in the way.
    expect(laneFor(ends(a, b), a, b, [box(0, 400)])).toBeUndefined();
    // Nor is it for ends a few pixels apart (a curve, not a loop of stubs).
    const near = box(210, 20);
    expect(laneFor(ends(a, near), a, near, [])).toBeUndefined();
  });

  it("takes a lane past a node that an edge skips over in its row, on the nearer clear side", () => {
    const lane = laneFor(ends(a, c), a, c, [b])!;
    expect(lane).toBeDefined();
    expect(clear(lane, [a, b, c])).toBe(true);
    // With a node stacked close below the skipped one, the lane goes above the row instead.
    const under = box(270, 110);
    const above = laneFor(ends(a, c), a, c, [b, under])!;
    expect(above).toBeLessThan(0);
    expect(clear(above, [a, b, c, under])).toBe(true);
  });

  it("runs an edge back to the next row through the gap between the rows", () => {
    const next = box(0, 200);
    const lane = laneFor(ends(c, next), c, next, [a, b])!;
    expect(lane).toBeGreaterThan(100);
    expect(lane).toBeLessThan(200);
    // A node hanging into the gap pushes the lane below it (and below the target's row top when it must).
    const low = box(270, 0, 200, 160);
    const pushed = laneFor(ends(c, next), c, next, [a, low])!;
    expect(pushed).toBeGreaterThan(160);
    expect(clear(pushed, [c, low])).toBe(true);
  });

  it("draws the lane as straight runs with rounded corners from source to target", () => {
    const at = ends(c, box(0, 200));
    const d = lanePath(at, 150);
    expect(d.startsWith(`M ${at.sourceX} ${at.sourceY} L `)).toBe(true);
    expect(d.endsWith(` L ${at.targetX} ${at.targetY}`)).toBe(true);
    // Four corners: out of the source, onto the lane, off it, into the target.
    expect(d.match(/Q/g)).toHaveLength(4);
    expect(d).toContain(`Q ${at.sourceX + STUB} 150`);
    expect(d).toContain(`Q ${at.targetX - STUB} 150`);
  });
});
