/** The layering lint (eslint.config.mjs) fails on planted violations and passes the code as it is. */
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: process.cwd() });

async function messages(filePath: string, code: string, rule = "no-restricted-imports"): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return r!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

describe("layers", () => {
  it("a package importing one its package.json does not depend on fails", async () => {
    expect(await messages("packages/models/src/planted.ts", `import { RunStore } from "@citeflow/runstore";\nexport const s = RunStore;\n`)).toEqual([
      expect.stringContaining("@citeflow/models does not depend on @citeflow/runstore"),
    ]);
    expect(await messages("packages/core/src/planted.ts", `import { loadModel } from "@citeflow/models/dist/x.js";\nexport const m = loadModel;\n`)).toEqual([
      expect.stringContaining("@citeflow/core does not depend on @citeflow/models"),
    ]);
    expect(await messages("packages/nodes/src/planted.ts", `import { run } from "citeflow";\nexport const r = run;\n`)).toEqual([expect.stringContaining("does not depend on citeflow")]);
    // The run host sits below every front end: the CLI runs graphs through it, not through the notebook package.
    expect(await messages("packages/cli/src/planted.ts", `import { Session } from "citeflow";\nexport const s = Session;\n`)).toEqual([
      expect.stringContaining("@citeflow/cli does not depend on citeflow"),
    ]);
    expect(await messages("packages/host/src/planted.ts", `import { LiveRun } from "citeflow";\nexport const r = LiveRun;\n`)).toEqual([
      expect.stringContaining("@citeflow/host does not depend on citeflow"),
    ]);
  });

  it("core does no file or network work", async () => {
    expect(await messages("packages/core/src/planted.ts", `import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n`)).toEqual([expect.stringContaining("core has no I/O")]);
    expect(await messages("packages/core/src/planted.ts", `import { createHash } from "node:crypto";\nexport const h = createHash;\n`)).toEqual([]);
  });

  it("the editor imports core's browser entry and the templates, nothing else of Citeflow and no Node module", async () => {
    const editor = "extension/src/planted.ts";
    expect(await messages(editor, `import { validateGraph } from "@citeflow/core";\nexport const v = validateGraph;\n`)).toEqual([expect.stringContaining("the editor runs in the browser")]);
    expect(await messages(editor, `import { services } from "citeflow";\nexport const s = services;\n`)).toEqual([expect.stringContaining("the editor runs in the browser")]);
    expect(await messages(editor, `import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n`)).toEqual([expect.stringContaining("no Node modules")]);
    expect(
      await messages(editor, `import { reduceRunEvent } from "@citeflow/core/browser";\nimport t from "@citeflow/nodes/templates/verifai.citeflow.json";\nexport const x = [reduceRunEvent, t];\n`),
    ).toEqual([]);
  });

  it("the environment is read at the edges: below them process.env fails, except in the files that say why they read it", async () => {
    const planted = `export const where = process.env.CITEFLOW_STORE;\n`;
    for (const below of ["packages/nodes/src/planted.ts", "packages/retrieval/src/planted.ts", "packages/core/src/planted.ts", "packages/host/src/planted.ts", "packages/models/src/llama.ts"])
      expect(await messages(below, planted, "no-restricted-properties"), below).toEqual([expect.stringContaining("read the environment at an edge")]);
    for (const edge of ["packages/cli/src/planted.ts", "kernel/src/planted.ts", "packages/citeflow/src/planted.ts", "packages/runstore/src/redact.ts"])
      expect(await messages(edge, planted, "no-restricted-properties"), edge).toEqual([]);
  });

  it("the sources as they are pass", async () => {
    const results = await eslint.lintFiles(["packages/*/src/**/*.ts", "kernel/src/**/*.ts", "extension/src/**/*.{ts,tsx}"]);
    const rules = ["no-restricted-imports", "no-restricted-properties"];
    expect(results.flatMap((r) => r.messages.filter((m) => rules.includes(m.ruleId ?? "")).map((m) => `${r.filePath}: ${m.message}`))).toEqual([]);
  });
});
