import { execFile } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { toAnswer, type Verdict } from "@citeflow/core";
import { describeModel, fileSha256, parseCalibration } from "@citeflow/models";
import { doc, envServices, expectSha256Sums, run, tempDir } from "../helpers.js";

const MODELS = process.env.CITEFLOW_MODELS;
if (!MODELS) throw new Error("CITEFLOW_MODELS must be set (vitest.config.ts defaults it)");
const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, CITEFLOW_RUNS: "" } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const filesUnder = (dir: string, rel = ""): string[] =>
  readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(dir, join(rel, e.name)) : [join(rel, e.name)]));

/** A user's own NLI model (a toy one), installed with its SHA256SUMS as `citeflow train` leaves it. */
function installModel(): { dir: string; folder: string } {
  const dir = tempDir();
  const folder = join(dir, "acme", "nli");
  cpSync(join(MODELS!, "pair-nli-scifact"), folder, { recursive: true });
  const files = filesUnder(folder).filter((f) => f !== "SHA256SUMS");
  writeFileSync(join(folder, "SHA256SUMS"), files.map((f) => `${fileSha256(join(folder, f))}  ${f}\n`).join(""));
  return { dir, folder };
}

/**
 * Dev records as `eval scifact --binary --out` writes them for verify.nli: per claim, one sentence verdict per passage.
 * 10 claims whose passages say nothing (evidence ≤ 0.004), 30 whose support score rises with the claim's index: the
 * first 12 false, the rest true, two of each on the wrong side.
 */
function nliRecords(): string {
  const lines: string[] = [];
  const verdict = (s: number, c: number) => ({ claimId: "x", passageId: "p#0", label: "SUPPORT", probabilities: { SUPPORT: s, CONTRADICT: c, NO_EVIDENCE: 1 - s - c } });
  for (let i = 0; i < 10; i++) lines.push(JSON.stringify({ id: `n${i}`, gold: i % 2 ? "true" : "false", verdicts: [verdict(0.001 + i * 0.0003, 0.002)] }));
  for (let i = 0; i < 30; i++) {
    const s = 0.05 + (0.9 * i) / 29;
    const positive = i >= 12 !== (i === 3 || i === 8 || i === 15 || i === 20);
    lines.push(JSON.stringify({ id: `c${i}`, gold: positive ? "true" : "false", verdicts: [verdict(s * 0.95, (1 - s) * 0.5)] }));
  }
  return lines.join("\n") + "\n";
}

const passages = [{ id: "1#0", title: "Aspirin trial", text: "Aspirin lowered the rate of stroke in older adults. The trial ran for five years.", metadata: {}, scores: {} }];
const verifyGraph = (modelsDir: string) =>
  doc(
    {
      a: ["test.any", { value: toAnswer("Aspirin lowered the rate of stroke in older adults [1].", passages) }],
      p: ["test.any", { value: passages }],
      split: ["claims.split"],
      verify: ["verify.nli", { model: "acme/nli", modelsDir }],
    },
    ["a.out->split.answer", "split.claims->verify.claims", "p.out->verify.passages"],
  );

describe("citeflow calibrate", () => {
  it("chooses a user's model's calibration on dev records, writes it beside the model (its sum too), and verify.nli then gives calibrated verdicts", async () => {
    const { dir, folder } = installModel();
    writeFileSync(join(dir, "dev.jsonl"), nliRecords());
    envServices().allowModelsDir(dir);
    const before = await envServices().modelIdentity("nli", "acme/nli", dir);
    const uncalibrated = await run(verifyGraph(dir));
    expect((uncalibrated.byId.verify!.outputs!.claimVerdicts as Verdict[])[0]!.calibration).toBeUndefined();

    const dry = await cli(["calibrate", "dev.jsonl", "--model", "acme/nli", "--models-dir", dir, "--dry-run"], dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(join(folder, "calibration.json"))).toBe(false);

    const r = await cli(["calibrate", "dev.jsonl", "--model", "acme/nli", "--models-dir", dir, "--target", "0.8"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("10 of 40 claims below it (NO_EVIDENCE)");
    expect(r.stdout).toMatch(/verdicts for \d+ of 40 claims, \d\.\d{3} right \(target 0\.8\)/);
    const written = parseCalibration(readFileSync(join(folder, "calibration.json"), "utf8"), "calibration.json");
    expect(written.evidenceFloor).toBeGreaterThan(0.004);
    expect(written.evidenceFloor).toBeLessThan(0.05);
    expect(written.slope).toBeGreaterThan(0);
    expect(written.chosenOn).toMatchObject({ claims: 40, target: 0.8, belowFloor: 10, records: { file: "dev.jsonl", sha256: fileSha256(join(dir, "dev.jsonl")) } });
    expect(readFileSync(join(folder, "SHA256SUMS"), "utf8")).toContain("  calibration.json\n");
    expectSha256Sums(folder);

    // The model's identity (its cache key) follows its files: a calibrated model's cached verdicts are not reused.
    expect(await envServices().modelIdentity("nli", "acme/nli", dir)).not.toEqual(before);
    const calibrated = await run(verifyGraph(dir));
    const [v] = calibrated.byId.verify!.outputs!.claimVerdicts as Verdict[];
    expect(v!.calibration).toMatchObject({ band: written.band, rule: expect.stringContaining("acme/nli, calibrated on dev.jsonl (40 claims") });
    // The model's line (the run's first lines, eval, notebooks) says so.
    expect(describeModel("acme/nli", [dir])).toContain("; claim verdicts calibrated: acme/nli, calibrated on dev.jsonl (40 claims");

    // A calibration changed after it was written is refused where it loads, as a changed weight file is.
    writeFileSync(join(folder, "calibration.json"), JSON.stringify({ ...written, band: [0, 0] }));
    const tampered = await run(verifyGraph(dir));
    expect(tampered.byId.verify!.status).toBe("error");
    expect(tampered.byId.verify!.error!.message).toContain(`${join(folder, "calibration.json")} does not match`);
    expect(describeModel("acme/nli", [dir])).toContain(`(refused: ${join(folder, "calibration.json")} does not match`);
  });

  it("refuses records it cannot use, naming the file and line; a model that is not there; records of the other verifier", async () => {
    const { dir } = installModel();
    writeFileSync(join(dir, "bad.jsonl"), nliRecords() + JSON.stringify({ id: "z", gold: "maybe", verdicts: [] }) + "\n");
    const bad = await cli(["calibrate", "bad.jsonl", "--model", "acme/nli", "--models-dir", dir], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.jsonl:41: gold must be "true" or "false"');
    writeFileSync(join(dir, "judge.jsonl"), [1, -1, 2, -2, 0.5].map((score, i) => JSON.stringify({ id: `${i}`, gold: score > 0 ? "true" : "false", score })).join("\n"));
    const judge = await cli(["calibrate", "judge.jsonl", "--model", "acme/nli", "--models-dir", dir], dir);
    expect(judge.code).toBe(1);
    expect(judge.stderr).toContain("holds verify.llm records, but");
    expect(judge.stderr).toContain("not a judge adapter's folder (no adapter.gguf)");
    writeFileSync(join(dir, "dev.jsonl"), nliRecords());
    const missing = await cli(["calibrate", "dev.jsonl", "--model", "acme/none", "--models-dir", dir], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('model "acme/none": no installed model or adapter of that name');
    expect((await cli(["calibrate", "dev.jsonl", "--model", "acme/nli", "--models-dir", dir, "--target", "1.5"], dir)).code).toBe(2);
  });

  it("a calibration file is checked field by field", () => {
    const good = { slope: 1, intercept: 0, band: [0.4, 0.6], rule: "r" };
    expect(parseCalibration(JSON.stringify(good), "c.json")).toEqual(good);
    for (const [change, message] of [
      [{ band: [0.7, 0.3] }, "c.json: band must be [low, high] with 0 ≤ low ≤ high ≤ 1"],
      [{ slope: "1" }, "c.json: slope must be a finite number"],
      [{ rule: "" }, "c.json: rule must be a text"],
      [{ evidenceFloor: 2 }, "c.json: evidenceFloor must be a number between 0 and 1"],
    ] as const)
      expect(() => parseCalibration(JSON.stringify({ ...good, ...change }), "c.json")).toThrow(message);
    expect(() => parseCalibration("{", "c.json")).toThrow("c.json: not JSON");
  });
});
