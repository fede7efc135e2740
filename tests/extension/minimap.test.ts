/** The minimap's geometry: where the nodes and the view land in its box. */
import { describe, expect, it } from "vitest";
import { fitMinimap, viewRect } from "../../extension/lib/minimap.js";

const size = { width: 200, height: 150 };
const at = (f: { scale: number; dx: number; dy: number }, x: number, y: number) => [x * f.scale + f.dx, y * f.scale + f.dy];

describe("minimap geometry", () => {
  it("reads the view from React Flow's transform [x, y, zoom]", () => {
    expect(viewRect([-100, 50, 0.5], 800, 600)).toEqual({ x: 200, y: -100, width: 1600, height: 1200 });
  });

  it("fits nodes wider than tall across the box, centred, with the padding", () => {
    const nodes = { x: 0, y: 0, width: 1000, height: 200 };
    const f = fitMinimap(nodes, { x: 100, y: 50, width: 100, height: 100 }, size, 5);
    expect(f.scale).toBeCloseTo(0.19);
    const [x0, y0] = at(f, 0, 0);
    const [x1, y1] = at(f, 1000, 200);
    expect(x0).toBeCloseTo(5);
    expect(x1).toBeCloseTo(195);
    expect((y0! + y1!) / 2).toBeCloseTo(75);
  });

  it("keeps the view in the box when it lies outside the nodes", () => {
    const nodes = { x: 0, y: 0, width: 100, height: 100 };
    const view = { x: -900, y: 0, width: 300, height: 300 };
    const f = fitMinimap(nodes, view, size, 5);
    for (const [x, y] of [at(f, -900, 0), at(f, -600, 300), at(f, 100, 100)]) {
      expect(x).toBeGreaterThanOrEqual(5 - 1e-9);
      expect(x).toBeLessThanOrEqual(195 + 1e-9);
      expect(y).toBeGreaterThanOrEqual(5 - 1e-9);
      expect(y).toBeLessThanOrEqual(145 + 1e-9);
    }
  });

  it("shows the view alone when there are no nodes, and survives a zero-size view", () => {
    const f = fitMinimap(undefined, { x: 10, y: 10, width: 0, height: 0 }, size);
    expect(Number.isFinite(f.scale) && f.scale > 0).toBe(true);
    expect(at(f, 10, 10)).toEqual([100, 75]);
  });
});
