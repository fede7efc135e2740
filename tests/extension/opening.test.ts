import { describe, expect, it } from "vitest";
import { openingView, READABLE_ZOOM } from "../../extension/lib/opening.js";

describe("openingView: where the canvas looks when a pipeline opens", () => {
  const pane = { width: 700, height: 760 };

  it("shows a graph that fits at a readable zoom whole and centred, never above 100 %", () => {
    const v = openingView({ x: 0, y: 0, width: 400, height: 200 }, pane);
    expect(v.zoom).toBe(1);
    expect(v.x).toBe((700 - 400) / 2);
    expect(v.y).toBe((760 - 200) / 2);
    const tighter = openingView({ x: 100, y: 50, width: 700, height: 200 }, pane);
    expect(tighter.zoom).toBeCloseTo((700 - 48) / 700);
    expect(tighter.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
  });

  it("keeps a long pipeline readable with its start at the left edge instead of fitting it at 0.4", () => {
    const strip = { x: -20, y: 10, width: 2500, height: 150 };
    const v = openingView(strip, pane);
    expect(v.zoom).toBe(READABLE_ZOOM);
    expect(v.x + strip.x * v.zoom).toBe(24);
    // Vertically it fits, so it is centred.
    expect(v.y + strip.y * v.zoom + (strip.height * v.zoom) / 2).toBeCloseTo(380);
  });

  it("starts at the top-left corner when the graph fits neither way", () => {
    const v = openingView({ x: 0, y: 0, width: 3000, height: 3000 }, pane);
    expect([v.x, v.y, v.zoom]).toEqual([24, 24, READABLE_ZOOM]);
  });

  it("leaves the default view for an empty graph or a pane not laid out yet", () => {
    expect(openingView({ x: 0, y: 0, width: 0, height: 0 }, pane)).toEqual({ x: 24, y: 24, zoom: 1 });
    expect(openingView({ x: 0, y: 0, width: 100, height: 100 }, { width: 0, height: 0 })).toEqual({ x: 24, y: 24, zoom: 1 });
  });
});
