/** Which models a node uses is declared once, by its model params' marks (`modelParam`): the CLI's model lines and the editor's model fields read them; a node that loads a model without declaring it fails here. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinNodes, modelParamsOf } from "@citeflow/nodes";

const src = resolve(import.meta.dirname, "..", "..", "packages", "nodes", "src");
const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith(".ts") ? [join(dir, f)] : []));

describe("model params", () => {
  it("every node that loads an NLI model or a reranker declares a model param of that kind", () => {
    let checked = 0;
    for (const file of files(src)) {
      const text = readFileSync(file, "utf8");
      const type = /^\s+type: "([a-z.-]+)"/m.exec(text)?.[1] ?? /const TYPE = "([a-z.-]+)"/.exec(text)?.[1];
      const def = builtinNodes.find((d) => d.type === type);
      if (!def) continue;
      for (const kind of ["nli", "reranker"] as const) {
        if (!new RegExp(`services\\.${kind}\\(`).test(text)) continue;
        checked++;
        const declared = Object.values((def.params as unknown as { shape: Record<string, { meta(): { citeflowModelKind?: string } | undefined }> }).shape).some(
          (s) => s.meta()?.citeflowModelKind === kind,
        );
        expect(declared, `${def.type} (${file}) loads a ${kind} model without a modelParam("${kind}", …)`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4); // verify.nli, eval.citations, rerank.cross-encoder, check.sufficiency
  });

  it("a model param used only under some params is listed only then: check.sufficiency's reranker with judge reranker", () => {
    const def = (type: string) => builtinNodes.find((d) => d.type === type)!;
    const sufficiency = def("check.sufficiency");
    const defaults = sufficiency.params.parse({}) as Record<string, unknown>;
    expect(modelParamsOf(sufficiency.params, defaults)).toEqual([]);
    expect(modelParamsOf(sufficiency.params, { ...defaults, judge: "reranker", reranker: "my/reranker" })).toEqual([{ kind: "reranker", param: "reranker", value: "my/reranker" }]);
    const verify = def("verify.nli");
    expect(modelParamsOf(verify.params, verify.params.parse({}) as Record<string, unknown>)).toEqual([{ kind: "nli", param: "model", value: "" }]);
  });
});
