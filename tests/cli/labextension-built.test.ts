/** A labextension build cut short is not taken for a finished one (`ensure` rebuilds it, `npm run lab` refuses it). */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { labextensionBuilt } from "../../scripts/mtimes.mjs";
import { tempDir } from "../helpers.js";

describe("labextensionBuilt", () => {
  it("is true only when package.json names a remote entry that exists", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "static"));
    writeFileSync(join(dir, "static", "style.js"), "/* style */");
    expect(labextensionBuilt(dir)).toBe(false); // what an interrupted build left on two machines
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@citeflow/jupyterlab", jupyterlab: { extension: "./extension" } }));
    expect(labextensionBuilt(dir)).toBe(false);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@citeflow/jupyterlab", jupyterlab: { _build: { load: "static/remoteEntry.abc.js" } } }));
    expect(labextensionBuilt(dir)).toBe(false);
    writeFileSync(join(dir, "static", "remoteEntry.abc.js"), "/* entry */");
    expect(labextensionBuilt(dir)).toBe(true);
  });
});
