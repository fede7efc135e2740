import { describe, expect, it } from "vitest";
import { loadEmbedder } from "@citeflow/models";
import { INSTALLED } from "./local.js";

/**
 * all-MiniLM-L6-v2 as `npm run models` converts it (safetensors → ONNX without PyTorch, in
 * packages/datasets/python/bert_to_onnx.py), checked against the model's published behaviour: the
 * sentence-transformers documentation gives cosine 0.7553 for this pair.
 */
describe("the converted all-MiniLM-L6-v2", () => {
  it("embeds as the published model does", async () => {
    const e = await loadEmbedder("Xenova/all-MiniLM-L6-v2", { modelsDirs: [INSTALLED] });
    const [food, bread, baby, vitD, bones] = await e.embed([
      "A man is eating food.",
      "A man is eating a piece of bread.",
      "The girl is carrying a baby.",
      "Vitamin D deficiency raises fracture risk.",
      "Low vitamin D levels are linked to broken bones.",
    ]);
    const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(food!).toHaveLength(384);
    expect(cos(food!, bread!)).toBeCloseTo(0.7553, 3);
    expect(cos(food!, baby!)).toBeLessThan(0.1);
    expect(cos(vitD!, bones!)).toBeGreaterThan(0.7);
  });
});
