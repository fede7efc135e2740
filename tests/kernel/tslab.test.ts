/**
 * The kernel takes tslab's executor, converter and quick-info printer from its dist files (kernel/src/tslab.ts), which
 * are not tslab's public API: the installed tslab must be the version that seam names, pinned exactly, with each part.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { TSLAB_VERSION, createConverter, createExecutor, isCompleteCode, printQuickInfo } from "../../kernel/dist/tslab.js";

const kernelPackage = new URL("../../kernel/package.json", import.meta.url);

describe("the kernel's seam into tslab", () => {
  it("is the installed tslab's version, pinned exactly, and finds each part it takes", () => {
    const pinned = (JSON.parse(readFileSync(kernelPackage, "utf8")) as { dependencies: Record<string, string> }).dependencies.tslab;
    expect(pinned).toBe(TSLAB_VERSION);
    const { versions } = createRequire(kernelPackage)("tslab") as { versions: { tslab: string } };
    expect(versions.tslab).toBe(TSLAB_VERSION);
    expect([createConverter, createExecutor, isCompleteCode, printQuickInfo].map((f) => typeof f)).toEqual(["function", "function", "function", "function"]);
    expect(isCompleteCode("const a = {").completed).toBe(false);
    expect(isCompleteCode("const a = 1;").completed).toBe(true);
  });
});
