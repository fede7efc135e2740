import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadNli } from "@citeflow/models";
import { argmaxLabel } from "@citeflow/eval";
import { tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const MODELS = process.env.CITEFLOW_MODELS!;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, CITEFLOW_MODELS: MODELS } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const pairs = [
  { premise: "Aspirin lowered the rate of stroke in older adults.", hypothesis: "Aspirin lowers stroke risk.", label: "SUPPORT", metadata: { source: "mine" } },
  { premise: "Aspirin did not change the rate of stroke.", hypothesis: "Aspirin lowers stroke risk.", label: "CONTRADICT", metadata: { source: "mine" } },
  { premise: "Coffee intake was measured by questionnaire.", hypothesis: "Aspirin lowers stroke risk.", label: "neutral", metadata: { source: "theirs" } },
  { premise: "Statins reduced LDL cholesterol.", hypothesis: "Statins lower cholesterol.", label: "entailment", metadata: { source: "theirs" } },
];

describe("citeflow eval nli", () => {
  it("scores each pair with the model as the product loads it: the figures are the model's own argmax, per source, and --compare of a model with itself is 0", async () => {
    const dir = tempDir();
    const file = join(dir, "pairs.jsonl");
    writeFileSync(file, pairs.map((p) => JSON.stringify(p)).join("\n") + "\n{not json\n");
    const r = await cli(["eval", "nli", "--pairs", file, "--model", "pair-nli-scifact", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`refused: ${file}:5: not valid JSON`);
    const s = JSON.parse(r.stdout);
    // The same model in this process: the command's accuracy is exactly what its probabilities say.
    const nli = await loadNli("pair-nli-scifact", { modelsDirs: [MODELS] });
    const probs = await nli.classify(pairs.map((p) => ({ premise: p.premise, hypothesis: p.hypothesis })));
    const gold = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "SUPPORT"];
    const right = probs.filter((p, i) => argmaxLabel(p) === gold[i]).length;
    expect(s.pairs).toBe(4);
    expect(s.accuracy).toBeCloseTo(right / 4);
    const sc = [0, 1, 3].filter((i) => (probs[i]!.SUPPORT >= probs[i]!.CONTRADICT ? "SUPPORT" : "CONTRADICT") === gold[i]).length;
    expect(s.support_vs_contradict).toBeCloseTo(sc / 3);
    expect(Object.keys(s.by_source)).toEqual(["mine", "theirs"]);
    expect(s.by_source.theirs.pairs).toBe(2);
    const total = Object.values(s.confusion as Record<string, Record<string, number>>).reduce((a, row) => a + Object.values(row).reduce((b, n) => b + n, 0), 0);
    expect(total).toBe(4);

    const c = await cli(["eval", "nli", "--pairs", file, "--compare", "pair-nli-scifact", "pair-nli-scifact", "--json"]);
    expect(c.code, c.stderr).toBe(0);
    const cmp = JSON.parse(c.stdout);
    expect(cmp.accuracy).toEqual({ difference: 0, interval95: [0, 0] });
    expect(cmp.a.scores.accuracy).toBe(s.accuracy);
  });

  it("a file with no labelled pair is refused naming its file and lines", async () => {
    const file = join(tempDir(), "bad.jsonl");
    writeFileSync(file, JSON.stringify({ premise: "x", hypothesis: "y", label: "MAYBE" }) + "\n");
    const r = await cli(["eval", "nli", "--pairs", file, "--model", "pair-nli-scifact"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: no labelled pair in it (${file}:1: label "MAYBE" is not one of`);
  });
});
