import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the CLI's built module, tested directly
import { addressSpaceWarning } from "../../packages/cli/dist/limits.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax address space         ${soft}            unlimited            bytes\n`;

describe("an address-space limit (ulimit -v) too low for Node's WebAssembly and the models", () => {
  it("is said first, with the limit and what to do; none without one, or above what is needed", () => {
    expect(addressSpaceWarning(limits("unlimited"))).toBeUndefined();
    expect(addressSpaceWarning(limits(String(64 * 2 ** 30)))).toBeUndefined();
    expect(addressSpaceWarning(limits(String(8 * 2 ** 30)))).toContain("at most 8.0 GiB of address space (ulimit -v)");
    // The CLI says it before it loads anything that the limit could stop.
    const r = spawnSync("bash", ["-c", `ulimit -v 20000000 && exec "${process.execPath}" "${bin}" --version`], { encoding: "utf8" });
    expect(r.stderr.split("\n")[0]).toMatch(/^citeflow: this process may use at most 19\.1 GiB of address space \(ulimit -v\);.*Run with ulimit -v unlimited/);
  });
});
