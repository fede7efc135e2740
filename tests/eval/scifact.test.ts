import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { bestThreshold, rocAuc, scoreClassification } from "@citeflow/eval";
import type { CorpusDocument } from "@citeflow/retrieval";
import { RunStore } from "@citeflow/runstore";
import { tempDir } from "../helpers.js";
import { smallSciFactStore } from "../scifact.js";
import { GEMMA } from "../models/local.js";
import { json, loopback } from "../models/loopback.js";
import { loadNli } from "@citeflow/models";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

describe("classification scores", () => {
  it("accuracy, macro-F1 and the confusion matrix", () => {
    const s = scoreClassification(
      [
        { gold: "A", predicted: "A" },
        { gold: "A", predicted: "B" },
        { gold: "B", predicted: "B" },
        { gold: "C", predicted: "B" },
      ],
      ["A", "B", "C"],
    );
    expect(s.accuracy).toBe(0.5);
    expect(s.confusion).toEqual({ A: { A: 1, B: 1, C: 0 }, B: { A: 0, B: 1, C: 0 }, C: { A: 0, B: 1, C: 0 } });
    // F1: A = 2/3, B = 2·1/(2+2) = 0.5, C = 0.
    expect(s.macro_f1).toBeCloseTo((2 / 3 + 0.5 + 0) / 3, 12);
    expect(() => scoreClassification([{ gold: "Z", predicted: "A" }], ["A"])).toThrow(/gold label "Z"/);
  });

  it("the best threshold on a score: the cut with the most right, at the middle of its gap", () => {
    const at = (score: number, positive: boolean) => ({ score, positive });
    // Sorted: -1 n, 0 n, 2 p, 3 n, 5 p, 6 p. Cut between 0 and 2: 5 of 6 right; between 3 and 5: 5 of 6 too, gap 2 both → the first.
    expect(bestThreshold([at(5, true), at(-1, false), at(2, true), at(3, false), at(6, true), at(0, false)])).toEqual({ threshold: 1, accuracy: 5 / 6 });
    // All positive: every item above the threshold.
    expect(bestThreshold([at(1, true), at(2, true)])).toEqual({ threshold: 0, accuracy: 1 });
    // All negative: the threshold at the highest score (positive means above it).
    expect(bestThreshold([at(1, false), at(2, false)])).toEqual({ threshold: 2, accuracy: 1 });
    // Tied scores are never split.
    expect(bestThreshold([at(1, true), at(1, false), at(1, true)]).accuracy).toBeCloseTo(2 / 3, 12);
    expect(() => bestThreshold([])).toThrow(/no scored items/);
  });

  it("AUC: the share of (positive, negative) pairs ranked right, a tie counting half; none without both kinds", () => {
    const at = (score: number, positive: boolean) => ({ score, positive });
    // Positives 2, 5, 6 against negatives −1, 0, 3: 8 of 9 pairs right (2 < 3 is the wrong one).
    expect(rocAuc([at(5, true), at(-1, false), at(2, true), at(3, false), at(6, true), at(0, false)])).toBeCloseTo(8 / 9, 12);
    expect(rocAuc([at(1, true), at(1, false)])).toBe(0.5);
    expect(rocAuc([at(0, true), at(1, false)])).toBe(0);
    expect(rocAuc([at(1, true), at(2, true)])).toBeUndefined();
    expect(rocAuc([])).toBeUndefined();
  });
});

describe("citeflow eval scifact", () => {
  let store: string;
  let claims: string;
  beforeAll(async () => {
    let docs: CorpusDocument[];
    ({ store, docs } = await smallSciFactStore(40));
    claims = join(store, "claims.jsonl");
    const d = docs[0]!;
    writeFileSync(
      claims,
      [
        { id: 1, claim: d.sentences![0], evidence: { [d.docId]: [{ sentences: [0], label: "SUPPORT" }] } },
        { id: 2, claim: "Quantum gravity explains the colour of cats.", evidence: {} },
        { id: 3, claim: docs[1]!.title, evidence: { [docs[1]!.docId]: [{ sentences: [0], label: "CONTRADICT" }] } },
      ]
        .map((c) => JSON.stringify(c))
        .join("\n"),
    );
  }, 120_000);

  const exec = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, ...args], { env: { ...process.env, CITEFLOW_NLI_MODEL: "pair-nli-scifact" } }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  it("3-way: accuracy, macro-F1 and confusion over every claim", async () => {
    const runs = tempDir();
    const r = await exec(["eval", "scifact", "--claims", claims, "--store", store, "--json", "--runs", runs]);
    expect(r.code, r.stderr).toBe(0);
    // Each claim's run leaves its trace in the run store, as every run does.
    expect(new RunStore(runs).listRuns().map((l) => [l.graph, l.status])).toEqual(Array(3).fill(["SciFact open-retrieval verification", "ok"]));
    const s = JSON.parse(r.stdout);
    expect(Object.keys(s).sort()).toEqual(["accuracy", "claims", "confusion", "macro_f1"]);
    expect(s.claims).toBe(3);
    expect(Object.keys(s.confusion)).toEqual(["SUPPORT", "CONTRADICT", "NO_EVIDENCE"]);
    expect(
      Object.values(s.confusion)
        .flatMap((row) => Object.values(row as Record<string, number>))
        .reduce((a: number, b: number) => a + b, 0),
    ).toBe(3);
  });

  it("--out writes each claim's record, and a second run replaces the file", async () => {
    const out = join(tempDir(), "records.jsonl");
    for (let i = 0; i < 2; i++) {
      const r = await exec(["eval", "scifact", "--claims", claims, "--store", store, "--json", "--runs", tempDir(), "--out", out]);
      expect(r.code, r.stderr).toBe(0);
      const records = readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(records.map((x: { id: string }) => x.id)).toEqual(["1", "2", "3"]);
    }
  });

  it("$CITEFLOW_NLI_MODEL=tei:<url>: the same scores with the NLI model served by a TEI-shaped server as in-process", async () => {
    const local = await loadNli("pair-nli-scifact", { modelsDirs: [process.env.CITEFLOW_MODELS!] });
    const server = await loopback(async (req, res) => {
      if (req.path === "/info")
        return json(res, 200, {
          model_id: "pair-nli-scifact",
          model_sha: null,
          model_type: { classifier: { id2label: { 0: "SUPPORT", 1: "NO_EVIDENCE", 2: "CONTRADICT" } } },
          max_client_batch_size: 8,
        });
      const probs = await local.classify((req.body.inputs as Array<[string, string]>).map(([hypothesis, premise]) => ({ premise, hypothesis })));
      json(
        res,
        200,
        probs.map((p) => Object.entries(p).map(([label, score]) => ({ label, score }))),
      );
    });
    try {
      const served = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [bin, "eval", "scifact", "--claims", claims, "--store", store, "--json"],
          { env: { ...process.env, CITEFLOW_NLI_MODEL: `tei:${server.url}` } },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
      expect(served.code, served.stderr).toBe(0);
      expect(server.requests.some((r) => r.path === "/predict")).toBe(true);
      const inProcess = await exec(["eval", "scifact", "--claims", claims, "--store", store, "--json"]);
      expect(JSON.parse(served.stdout)).toEqual(JSON.parse(inProcess.stdout));
    } finally {
      await server.close();
    }
  }, 120_000);

  it("a served copy of a calibrated NLI model keeps its calibration: the TEI server's model_id names the model, and the verdicts equal the in-process ones", async () => {
    const models = [process.env.CITEFLOW_MODELS!, fileURLToPath(new URL("../../models", import.meta.url))].join(delimiter);
    const local = await loadNli("citeflow/nli-minilm-scifact", { modelsDirs: models.split(delimiter) });
    const serve = (modelId: string) =>
      loopback(async (req, res) => {
        if (req.path === "/info")
          return json(res, 200, { model_id: modelId, model_sha: null, model_type: { classifier: { id2label: { 0: "SUPPORT", 1: "NO_EVIDENCE", 2: "CONTRADICT" } } }, max_client_batch_size: 32 });
        const probs = await local.classify((req.body.inputs as Array<[string, string]>).map(([hypothesis, premise]) => ({ premise, hypothesis })));
        json(
          res,
          200,
          probs.map((p) => Object.entries(p).map(([label, score]) => ({ label, score }))),
        );
      });
    const evalWith = (nli?: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [bin, "eval", "scifact", "--claims", claims, "--store", store, "--json"],
          { env: { ...process.env, CITEFLOW_MODELS: models, ...(nli ? { CITEFLOW_NLI_MODEL: nli } : {}) } },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const copy = await serve("/srv/models/citeflow/nli-minilm-scifact/");
    const other = await serve("someone/other-nli");
    try {
      const inProcess = JSON.parse((await evalWith()).stdout);
      expect(inProcess.selective.rule).toContain("calibrated on the SciFact dev split");
      const served = await evalWith(`tei:${copy.url}`);
      expect(served.code, served.stderr).toBe(0);
      const s = JSON.parse(served.stdout);
      expect(s.selective.rule).toContain(`served at tei:${copy.url}, which reports it runs citeflow/nli-minilm-scifact`);
      expect({ ...s, selective: { ...s.selective, rule: "" } }).toEqual({ ...inProcess, selective: { ...inProcess.selective, rule: "" } });
      // A server running another model gets no calibration: verdicts without a band, as for any uncalibrated model.
      const unknown = JSON.parse((await evalWith(`tei:${other.url}`)).stdout);
      expect(unknown.selective).toBeUndefined();
    } finally {
      await copy.close();
      await other.close();
    }
  }, 180_000);

  it("--compare: each model's accuracy on the same claims, B − A and its interval", async () => {
    // The shipped NLI model (the repository's models/) against the static-vector fixture.
    const models = [process.env.CITEFLOW_MODELS!, fileURLToPath(new URL("../../models", import.meta.url))].join(delimiter);
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, "eval", "scifact", "--claims", claims, "--store", store, "--compare", "pair-nli-scifact", "citeflow/nli-minilm-scifact", "--json"],
        { env: { ...process.env, CITEFLOW_MODELS: models } },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.metric).toBe("SciFact 3-way accuracy");
    expect([c.a.name, c.b.name].map((n: string) => n.split(" ")[0])).toEqual(["pair-nli-scifact", "citeflow/nli-minilm-scifact"]);
    expect(c.items).toBe(3);
    for (const side of [c.a, c.b]) expect([0, 1 / 3, 2 / 3, 1].some((x) => Math.abs(side.score - x) < 1e-9)).toBe(true);
    expect(c.difference).toBeCloseTo(c.b.score - c.a.score, 12);
    expect(c.interval95[0]).toBeLessThanOrEqual(c.difference);
    expect(c.interval95[1]).toBeGreaterThanOrEqual(c.difference);
    // A model that is not there is named, and nothing is compared.
    const bad = await exec(["eval", "scifact", "--claims", claims, "--store", store, "--compare", "pair-nli-scifact", "no-such-nli"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("no-such-nli");
  }, 120_000);

  it("--binary keeps only claims with evidence, true/false; --parallel gives the same scores", async () => {
    const s = JSON.parse((await exec(["eval", "scifact", "--claims", claims, "--store", store, "--binary", "--json"])).stdout);
    expect(s.claims).toBe(2);
    expect(Object.keys(s.confusion)).toEqual(["true", "false"]);
    // Without --json: the same scores, for the claims file it read (any SciFact-format claims, not only SciFact's).
    const text = (await exec(["eval", "scifact", "--claims", claims, "--store", store, "--binary"])).stdout;
    expect(text).toContain(`Binary (claims with evidence) verification of ${claims}, judge nli, on 2 claims: accuracy ${s.accuracy.toFixed(3)}`);
    const all = JSON.parse((await exec(["eval", "scifact", "--claims", claims, "--store", store, "--json"])).stdout);
    const runs = tempDir();
    const parallel = await exec(["eval", "scifact", "--claims", claims, "--store", store, "--json", "--parallel", "3", "--runs", runs]);
    expect(parallel.code, parallel.stderr).toBe(0);
    expect(JSON.parse(parallel.stdout)).toEqual(all);
    expect(new RunStore(runs).listRuns()).toHaveLength(3);
  });

  it("--judge llm in-process scores true and false: --binary gives the best threshold, and --threshold at it scores as it says", async () => {
    const env = { ...process.env, CITEFLOW_CHAT_MODEL: GEMMA };
    const run = (extra: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [bin, "eval", "scifact", "--claims", claims, "--store", store, "--binary", "--judge", "llm", "--json", ...extra], { env }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const first = await run([]);
    expect(first.code, first.stderr).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s.claims).toBe(2);
    // The best cut is at least as good as the default (verify.llm's), and the threshold it names scores just that.
    expect(s.best_threshold.accuracy).toBeGreaterThanOrEqual(s.accuracy);
    const at = JSON.parse((await run(["--threshold", String(s.best_threshold.threshold)])).stdout);
    expect(at.accuracy).toBe(s.best_threshold.accuracy);
    expect(at.best_threshold).toEqual(s.best_threshold); // the scores do not depend on the threshold
    expect(at.auc).toBe(s.auc);
    if (s.confusion.true.true + s.confusion.true.false > 0 && s.confusion.false.true + s.confusion.false.false > 0) expect(s.auc).toBeTypeOf("number");
    else expect(s.auc).toBeUndefined();
    const bad = await run(["--threshold", "high"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--threshold must be a number, got "high"');
    // verify.llm's settings without verify.llm: an error, not a run that ignores them.
    const nli = await new Promise<{ err: unknown; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, "eval", "scifact", "--claims", claims, "--store", store, "--sentences", "2"], { env }, (err, _stdout, stderr) => resolve({ err, stderr })),
    );
    expect(nli.err).toBeTruthy();
    expect(nli.stderr).toContain("--sentences sets the built-in graph's verify.llm: it needs --judge llm and no --graph");
    const graph = await new Promise<{ err: unknown; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, "eval", "scifact", "--claims", claims, "--store", store, "--graph", "g.citeflow.json", "--judge-model", "m"], { env }, (err, _stdout, stderr) =>
        resolve({ err, stderr }),
      ),
    );
    expect(graph.err).toBeTruthy();
    expect(graph.stderr).toContain("--judge-model sets the built-in graph's judge: with --graph, name the model in the graph");
  }, 120_000);
});
