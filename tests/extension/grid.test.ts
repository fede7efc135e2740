import { describe, expect, it } from "vitest";
import { GRID, dotGap } from "../../extension/lib/grid.js";

describe("canvas background dots (dotGap)", () => {
  it("keeps the base gap while the dots are far enough apart", () => {
    expect(dotGap(1)).toBe(GRID.gap);
    expect(dotGap(GRID.minPx / GRID.gap)).toBe(GRID.gap);
    expect(dotGap(2)).toBe(GRID.gap);
  });

  it("doubles the gap as the view zooms out, never leaving dots closer than minPx", () => {
    expect(dotGap(0.5)).toBe(40);
    expect(dotGap(0.15)).toBe(160);
    expect(dotGap(0.1)).toBe(160);
    for (let z = 0.05; z <= 3; z += 0.01) {
      const g = dotGap(z);
      expect(g * z).toBeGreaterThanOrEqual(GRID.minPx);
      // The smallest such gap: half of it would be too dense (unless it is the base gap).
      if (g > GRID.gap) expect((g / 2) * z).toBeLessThan(GRID.minPx);
    }
  });

  it("keeps the base gap for a zoom that is not a positive number", () => {
    for (const z of [0, -1, Number.NaN]) expect(dotGap(z)).toBe(GRID.gap);
  });

  it("takes its own base gap and spacing", () => {
    expect(dotGap(0.25, { gap: 10, size: 1, minPx: 10 })).toBe(40);
  });
});
