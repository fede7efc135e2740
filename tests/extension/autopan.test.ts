/** Autopan past the pane's edge: how fast the view pans for a pointer near or beyond an edge. */
import { describe, expect, it } from "vitest";
import { EDGE_ZONE, edgePan } from "../../extension/lib/autopan.js";

describe("edge autopan speed", () => {
  it("does not pan with the pointer further inside than the zone", () => {
    expect(edgePan(EDGE_ZONE, 800, 15)).toBe(0);
    expect(edgePan(400, 800, 15)).toBe(0);
    expect(edgePan(800 - EDGE_ZONE, 800, 15)).toBe(0);
  });

  it("pans towards the near edge's side, faster the closer the pointer, at full speed on the edge and beyond", () => {
    // Near the start (left or top) the view moves forward, bringing what lies before it into view.
    expect(edgePan(EDGE_ZONE / 2, 800, 15)).toBe(7.5);
    expect(edgePan(0, 800, 15)).toBe(15);
    expect(edgePan(-300, 800, 15)).toBe(15);
    // Near the end it moves back.
    expect(edgePan(800 - EDGE_ZONE / 4, 800, 16)).toBe(-12);
    expect(edgePan(800, 800, 15)).toBe(-15);
    expect(edgePan(2000, 800, 15)).toBe(-15);
  });

  it("grows steadily through the zone", () => {
    const speeds = Array.from({ length: EDGE_ZONE + 1 }, (_, i) => edgePan(EDGE_ZONE - i, 800, 15));
    for (let i = 1; i < speeds.length; i++) expect(speeds[i]).toBeGreaterThan(speeds[i - 1]);
  });
});
