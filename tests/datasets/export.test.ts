import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { loadGraph, startRun } from "@citeflow/core";
import { createRegistry, templatePath } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { exportDataset } from "@citeflow/datasets";
import { completion, json } from "../models/loopback.js";
import { templateSuite } from "../scifact.js";
import { envServices, readJsonl } from "../helpers.js";

const SECRET = "sk-planted-export-key-0123456789abcdef";
const DRAFT = "The first study found a clear effect on the outcome measured in this cohort [0].";
const FINAL = DRAFT + " A second study confirmed it in a larger and older population, with similar methods [1].";
// Verif.ai's answer in the model's own words (1-based markers): its claims against their passages' sentences make NLI rows
// (a quote against its own sentence would teach nothing, and the export drops it).
const VERIFAI = "The first paper reports a clear effect in this group [1]. The second paper describes the methods used to measure it [2].";

const suite = templateSuite(60, "CITEFLOW_RERANK_MODEL", "OPENAI_API_KEY");
const registry = createRegistry();
const runsDir = mkdtempSync(join(tmpdir(), "citeflow-export-runs-"));
const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const DATASETS = fileURLToPath(new URL("../../packages/datasets/dist/index.js", import.meta.url));
const NODES = fileURLToPath(new URL("../../packages/nodes/dist/index.js", import.meta.url));

async function runTemplate(name: string, question: string) {
  const store = new RunStore(runsDir);
  const g = loadGraph(readFileSync(templatePath(name), "utf8"), registry);
  const r = await startRun(g, { ...store.runOptions(), services: envServices(), inputs: { question: { id: `q-${question.length}-${name}`, text: question } } }).result;
  expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
  return r.runId;
}

function exportTo(format: Parameters<typeof exportDataset>[0]["format"], extra: Partial<Parameters<typeof exportDataset>[0]> = {}) {
  const out = mkdtempSync(join(tmpdir(), `citeflow-export-${format}-`));
  const result = exportDataset({ runs: runsDir, services: envServices(), format, out, split: 1, ...extra });
  return { out, result, rows: readJsonl(join(out, "train.jsonl")) };
}

describe("exports from template runs (scripted LLM on loopback)", () => {
  beforeAll(async () => {
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      if (user.includes("Write a concise")) return json(res, 200, completion(DRAFT));
      if (user.includes("[1]") && !user.includes("[0]")) return json(res, 200, completion(VERIFAI));
      if (user.includes("You review")) return json(res, 200, completion("Feedback: Add the second study.\nQuestion: none"));
      if (user.includes("Revise the answer")) return json(res, 200, completion(FINAL));
      return json(res, 200, completion(DRAFT));
    });
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_RERANK_MODEL = "pair-rerank-scifact";
    process.env.CITEFLOW_NLI_MODEL = "pair-nli-scifact";
    process.env.CITEFLOW_CHAT_MODEL = "loopback-model";
    process.env.OPENAI_BASE_URL = server.url;
    process.env.OPENAI_API_KEY = SECRET;
    for (const d of suite.docs.slice(0, 3)) await runTemplate("openscholar", d.title);
    // Verif.ai for NLI rows, its answers in the model's own words; the planted key also sits in a question.
    for (const d of suite.docs.slice(3, 6)) await runTemplate("verifai", d.title);
    // One Verif.ai run offline: its extractive answer quotes the passages word for word.
    delete process.env.CITEFLOW_CHAT_MODEL;
    await runTemplate("verifai", `${suite.docs[6]!.title} ${SECRET}`);
    process.env.OPENAI_API_KEY = SECRET;
  }, 300_000);

  it("sft: TRL conversational / OpenAI rows; the user turn is the prompt the generator saw", () => {
    const { rows } = exportTo("sft");
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(["messages", "metadata"]);
      expect(r.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant"]);
      // One numbered block per passage the generator was given, as it saw them.
      expect((r.messages[1].content.match(/^\[\d+\] /gm) ?? []).length).toBe(r.metadata.passageIds.length);
    }
    const os = rows.find((r) => r.metadata.graph === "OpenScholar")!;
    expect(os.messages[1].content).toMatch(/^References:\n\n\[0\] /);
    expect(os.messages[1].content).toContain("Write a concise");
    expect(os.messages[2].content.startsWith(FINAL.slice(0, 50))).toBe(true);
    expect(os.metadata).toMatchObject({ nodeId: "draft", models: { generator: "loopback-model" }, sources: ["scifact"] });
    expect(os.metadata.runId).toMatch(/^\d{8}T/);
  });

  it("sft-completion, dpo, dpo-openai, kto: exact TRL and OpenAI shapes; final answer chosen over the draft", () => {
    const comp = exportTo("sft-completion").rows[0]!;
    expect(Object.keys(comp).sort()).toEqual(["completion", "metadata", "prompt"]);
    expect(comp.prompt.map((m: any) => m.role)).toEqual(["system", "user"]);
    expect(comp.completion.map((m: any) => m.role)).toEqual(["assistant"]);

    const dpo = exportTo("dpo").rows;
    expect(dpo.length).toBe(3); // the OpenScholar runs; Verif.ai's answer is its draft
    expect(Object.keys(dpo[0]!).sort()).toEqual(["chosen", "metadata", "prompt", "rejected"]);
    expect(dpo[0]!.chosen[0].content.startsWith(FINAL.slice(0, 50))).toBe(true);
    expect(dpo[0]!.rejected).toEqual([{ role: "assistant", content: DRAFT }]);

    const oa = exportTo("dpo-openai", { metadata: false }).rows;
    expect(Object.keys(oa[0]!).sort()).toEqual(["input", "non_preferred_output", "preferred_output"]);
    expect(Object.keys(oa[0]!.input)).toEqual(["messages"]);
    expect(oa[0]!.non_preferred_output).toEqual([{ role: "assistant", content: DRAFT }]);

    const kto = exportTo("kto").rows;
    expect(kto.length).toBe(6);
    expect(Object.keys(kto[0]!).sort()).toEqual(["completion", "label", "metadata", "prompt"]);
    expect(kto.filter((r) => r.label === true).length).toBe(3);
    expect(kto.filter((r) => r.label === false).every((r) => r.completion[0].content === DRAFT)).toBe(true);
  });

  it("openscholar: answer generation, feedback generation and (kept) feedback incorporation, from the loop's traces", () => {
    const { rows, out } = exportTo("openscholar");
    const of = (t: string) => rows.filter((r) => r.type === t);
    expect(of("feedback_generation").length).toBe(3);
    expect(of("feedback_incorporation").length).toBe(3);
    expect(of("answer_generation").length).toBe(exportTo("sft").rows.length);
    const fb = of("feedback_generation")[0]!;
    // The calls as traced: generate.answer's system message, then the prompt (references first).
    expect(fb.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(fb.messages[1].content).toContain("You review the answer above");
    expect(fb.messages[2].content).toBe("Feedback: Add the second study.\nQuestion: none");
    const inc = of("feedback_incorporation")[0]!;
    expect(inc.messages[1].content).toContain(`Answer: ${DRAFT}`);
    expect(inc.messages[1].content).toContain("Feedback: Add the second study.");
    expect(inc.messages[2].content).toBe(FINAL);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("| train | 13 | 7 | 3 | 3 |");
  });

  it("nli: premise/hypothesis/label/label_id with the card's label map; a quote against its own sentence is dropped and counted", () => {
    const { rows, out, result } = exportTo("nli");
    expect(rows.length).toBeGreaterThan(0);
    // A Verif.ai run whose extractive answer quotes its passages: its claims against the sentences they quote teach nothing.
    const words = (t: string) =>
      t
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim();
    expect(result.removed.trivial).toBeGreaterThan(0);
    expect(rows.filter((r) => words(r.premise) === words(r.hypothesis))).toEqual([]);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain(
      `- pairs whose premise is the hypothesis removed (a quote checked against its own sentence teaches nothing): ${result.removed.trivial}`,
    );
    const ids = { SUPPORT: 0, NO_EVIDENCE: 1, CONTRADICT: 2 } as Record<string, number>;
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(["hypothesis", "label", "label_id", "metadata", "premise"]);
      expect(r.label_id).toBe(ids[r.label]);
      expect(r.metadata.models).toEqual({ nli: "pair-nli-scifact" });
    }
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain("| SUPPORT | 0 | entailment |");
    expect(card).toContain("| CONTRADICT | 2 | contradiction |");
    expect(card).toContain("SciFact: claims CC BY 4.0; abstracts ODC-By 1.0");
    expect(card).toMatch(/citeflow export --runs .* --format nli/);
  });

  it("the card counts rows per split and label; the split is deterministic by seed", () => {
    const out = mkdtempSync(join(tmpdir(), "citeflow-export-split-"));
    const a = exportDataset({ runs: runsDir, services: envServices(), format: "sft", out, split: 0.5, seed: 7 });
    const out2 = mkdtempSync(join(tmpdir(), "citeflow-export-split-"));
    const b = exportDataset({ runs: runsDir, services: envServices(), format: "sft", out: out2, split: 0.5, seed: 7 });
    expect(a.files).toEqual(b.files);
    expect(readFileSync(join(out, "train.jsonl"), "utf8")).toBe(readFileSync(join(out2, "train.jsonl"), "utf8"));
    expect(a.files["train.jsonl"]! + a.files["validation.jsonl"]!).toBe(exportTo("sft").rows.length);
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain(`| train | ${a.files["train.jsonl"]} |`);
    expect(card).toContain(`| validation | ${a.files["validation.jsonl"]} |`);
  });

  it("a split that leaves a side empty (too few questions for the fraction) is said, in the result and the card", () => {
    const made = [0, 1, 2, 3, 4, 5].map((seed) => {
      const out = mkdtempSync(join(tmpdir(), "citeflow-export-empty-"));
      return { out, r: exportDataset({ runs: runsDir, services: envServices(), format: "sft", out, split: 0.02, seed }) };
    });
    const empty = made.find((m) => m.r.files["train.jsonl"] === 0)!;
    expect(empty, "a seed whose 2 % hash split leaves train empty").toBeDefined();
    const total = empty.r.files["validation.jsonl"]!;
    expect(empty.r.warnings).toEqual([expect.stringContaining(`the train split is empty: the hash split at --split 0.02 --seed ${made.indexOf(empty)} put all ${total} rows on the other side`)]);
    expect(readFileSync(join(empty.out, "README.md"), "utf8")).toContain("Warning: the train split is empty");
    expect(exportTo("sft").result.warnings).toEqual([]);
  });

  it("NLI rows of one question stay on one side of the split, whatever their claims", () => {
    const out = mkdtempSync(join(tmpdir(), "citeflow-export-nli-split-"));
    exportDataset({ runs: runsDir, services: envServices(), format: "nli", out, split: 0.5, seed: 3 });
    const side = new Map<string, Set<string>>();
    for (const file of ["train.jsonl", "validation.jsonl"])
      for (const r of existsSync(join(out, file)) ? readJsonl(join(out, file)) : []) side.set(r.metadata.runId, new Set([...(side.get(r.metadata.runId) ?? []), file]));
    expect(side.size).toBeGreaterThan(1);
    expect([...side.values()].every((files) => files.size === 1)).toBe(true);
  });

  it("--parquet writes the same rows as Parquet (nested messages and metadata kept)", async () => {
    const { out, rows } = exportTo("sft", { parquet: true });
    const { readParquet } = await import("parquet-wasm");
    const { tableFromIPC } = await import("apache-arrow");
    const table = tableFromIPC(readParquet(readFileSync(join(out, "train.parquet"))).intoIPCStream());
    expect(table.numRows).toBe(rows.length);
    expect(
      table
        .get(0)!
        .toJSON()
        .messages.toJSON()
        .map((m: any) => m.toJSON()),
    ).toEqual(rows[0]!.messages);
    expect(table.get(0)!.toJSON().metadata.toJSON().runId).toBe(rows[0]!.metadata.runId);
  });

  it("no API key survives into any export: every byte of every file is searched", () => {
    const dirs = (["sft", "sft-completion", "openscholar", "dpo", "dpo-openai", "kto", "nli"] as const).map((f) => exportTo(f).out);
    for (const d of dirs)
      for (const f of readdirSync(d)) {
        const text = readFileSync(join(d, f), "utf8");
        expect(text.includes(SECRET), `${d}/${f}`).toBe(false);
        expect(/sk-planted/.test(text), `${d}/${f}`).toBe(false);
      }
    expect(exportTo("sft").rows.some((r) => r.messages[1].content.includes("[redacted]"))).toBe(true);
  });

  it("a full disk mid-export keeps the previous export whole and leaves no temp file; a killed export's temp file goes", () => {
    const { out } = exportTo("sft");
    const before = readFileSync(join(out, "train.jsonl"), "utf8");
    writeFileSync(join(out, "train.jsonl.999999999.k3j2.tmp"), before.slice(0, 100)); // as a killed export leaves it
    expect(before.length).toBeGreaterThan(8192); // past the limit below: the export fails part-way through
    // A 4 KB file-size limit: writes past it fail with EFBIG, as on a full disk.
    const script = `process.on("SIGXFSZ", () => {});
      const { exportDataset } = await import(${JSON.stringify(DATASETS)});
      const { configFromEnv, createServices } = await import(${JSON.stringify(NODES)});
      try { exportDataset({ runs: ${JSON.stringify(runsDir)}, services: createServices(configFromEnv(process.env)), format: "sft", out: ${JSON.stringify(out)}, split: 1 }); console.log("written"); }
      catch (e) { console.log(e.message); }`;
    const r = spawnSync("sh", ["-c", `ulimit -f 8; exec "${process.execPath}" --input-type=module -e "$0"`, script], { encoding: "utf8" });
    expect(r.stdout).toContain(`could not write ${join(out, "train.jsonl")}: the file-size limit was reached; nothing was changed there`);
    expect(readFileSync(join(out, "train.jsonl"), "utf8")).toBe(before);
    expect(readdirSync(out).sort()).toEqual(["README.md", "train.jsonl"]);
  });

  it("citeflow export takes a selection of runs (--run, --graph-name) and refuses one that selects nothing", () => {
    const runs = new RunStore(runsDir).listRuns();
    const one = runs.find((r) => r.graph.toLowerCase().includes("openscholar"))!;
    const out = mkdtempSync(join(tmpdir(), "citeflow-export-select-"));
    const r = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "sft", "--out", out, "--split", "1", "--run", one.runId], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("from 1 runs");
    expect(new Set(readJsonl(join(out, "train.jsonl")).map((row) => row.metadata.runId))).toEqual(new Set([one.runId]));
    const byName = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "sft", "--out", out, "--split", "1", "--graph-name", one.graph, "--json"], { encoding: "utf8" });
    expect(JSON.parse(byName.stdout).runs).toBe(runs.filter((x) => x.graph === one.graph).length);
    const unknown = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "sft", "--out", out, "--run", "20990101T000000Z-nosuch"], { encoding: "utf8" });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("--run 20990101T000000Z-nosuch: no such run in");
    const none = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "sft", "--out", out, "--graph-name", "no such graph"], { encoding: "utf8" });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("no run in");
  });

  it("citeflow export prints row counts, and refuses an unknown format", () => {
    const out = mkdtempSync(join(tmpdir(), "citeflow-export-cli-"));
    const r = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "kto", "--out", out, "--no-metadata", "--split", "1"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("train.jsonl: 6 rows");
    expect(readJsonl(join(out, "train.jsonl")).every((row) => !("metadata" in row))).toBe(true);
    const bad = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "parquet", "--out", out], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--format parquet: use one of sft, sft-completion, openscholar, dpo, dpo-openai, kto, nli");
  });
});

describe("corrections", () => {
  it("a corrected verdict and a corrected answer win in the exports; the run is never changed", async () => {
    const store = new RunStore(runsDir);
    const runs = store.listRuns();
    const vf = runs.filter((r) => r.graph === "Verif.ai").at(-1)!.runId; // the first: its answer is in the model's own words
    const os = runs.find((r) => r.graph === "OpenScholar")!.runId;
    const before = [readFileSync(store.runPath(vf)), readFileSync(store.runPath(os))];
    const verdict = (store.nodeOutput(vf, "verify", "verdicts") as Array<{ claimId: string; passageId?: string; label: string }>).find((v) => v.label !== "NO_REFERENCE")!;
    const flipped = verdict.label === "SUPPORT" ? "CONTRADICT" : "SUPPORT";

    const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, "correct", ...args, "--runs", runsDir], { encoding: "utf8" });
    const ok = cli(vf, "--node", "verify", "--verdict", `${verdict.claimId}=${flipped}`, "--passage", verdict.passageId!, "--note", "checked by hand");
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/recorded correction \w+ \(verdict\)/);
    const bad = cli(vf, "--node", "verify", "--verdict", "no-such-claim=SUPPORT");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('no verdict for claim "no-such-claim"');
    expect(cli(vf, "--node", "verify", "--verdict", `${verdict.claimId}=MAYBE`).stderr).toContain('label "MAYBE" is not one of');
    expect(cli(vf, "--node", "verify").status).toBe(2);
    const fixed = store.correct(os, { kind: "answer", nodeId: "cite", text: "A corrected answer that cites the first study [0]." });
    expect(cli(os, "--list").stdout).toContain(fixed.id);
    const shown = spawnSync(process.execPath, [BIN, "runs", "show", vf, "--runs", runsDir], { encoding: "utf8" }).stdout;
    expect(shown).toContain(`(verdict, node verify): claim ${verdict.claimId} × ${verdict.passageId} → ${flipped} — checked by hand`);

    const nli = exportTo("nli").rows.find((r) => r.metadata.corrections)!;
    expect(nli.label).toBe(flipped);
    expect(nli.metadata.originalLabel).toBe(verdict.label);
    const sft = exportTo("sft").rows.find((r) => r.metadata.runId === os)!;
    expect(sft.messages[2].content).toBe(fixed.text);
    const dpo = exportTo("dpo").rows.find((r) => r.metadata.runId === os)!;
    expect(dpo.chosen[0].content).toBe(fixed.text);
    expect(dpo.rejected[0].content.startsWith(FINAL.slice(0, 50))).toBe(true);
    expect([readFileSync(store.runPath(vf)), readFileSync(store.runPath(os))]).toEqual(before);
  });

  it("a changed blob, a missing blob and broken corrections lines are each reported and left out; the rest exports", () => {
    // A copy of the store, damaged three ways.
    const dir = mkdtempSync(join(tmpdir(), "citeflow-damaged-"));
    cpSync(runsDir, dir, { recursive: true });
    const store = new RunStore(dir);
    const runs = store.listRuns();
    const [os1, os2] = runs.filter((r) => r.graph === "OpenScholar").map((r) => r.runId);
    const vf = runs.filter((r) => r.graph === "Verif.ai").at(-1)!.runId; // the first: its answer is in the model's own words
    const blobOf = (runId: string) => store.blobs.path(Object.values(store.readRun(runId).nodes.find((n) => n.type === "generate.answer")!.outputHashes!)[0]!);
    const changed = blobOf(os1!);
    writeFileSync(changed, readFileSync(changed, "utf8").replace(/"text":"/, '"text":"Tampered. '));
    rmSync(blobOf(os2!));
    const corrections = join(dir, "corrections", `${vf}.jsonl`);
    appendFileSync(corrections, '{"kind":"answer","nodeId":"answer","text":42,"id":"x","runId":"r","at":1}\n{torn');
    const lines = readFileSync(corrections, "utf8").split("\n").length;

    const out = mkdtempSync(join(tmpdir(), "citeflow-export-damaged-"));
    const r = exportDataset({ runs: dir, services: envServices(), format: "nli", out, split: 1 });
    expect(r.skippedRuns).toEqual(expect.arrayContaining([expect.stringContaining(`${os1} (blob ${changed} does not match its hash`), expect.stringContaining(`${os2} (blob `)]));
    expect(r.skippedRuns.find((s) => s.startsWith(os2!))).toContain("is missing");
    expect(r.correctionProblems).toEqual([
      { file: corrections, line: lines - 1, message: "an answer correction needs non-empty text" },
      { file: corrections, line: lines, message: expect.stringContaining("not valid JSON") },
    ]);
    // The valid verdict correction still wins; the Verif.ai runs still export.
    const rows = readJsonl(join(out, "train.jsonl"));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((x) => x.metadata.corrections)).toBe(true);
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain("2 runs were left out");
    expect(card).toContain(`2 corrections line(s) were left out: ${corrections}:${lines - 1} (an answer correction needs non-empty text)`);

    // The CLI says the same on stderr, and exits 0 with the rest exported.
    const cli = spawnSync(process.execPath, [BIN, "export", "--runs", dir, "--format", "nli", "--out", mkdtempSync(join(tmpdir(), "citeflow-export-cli-"))], { encoding: "utf8" });
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stderr).toContain(`left out run ${os1} (blob ${changed} does not match its hash`);
    expect(cli.stderr).toContain(`${corrections}:${lines}: left out: not valid JSON`);
  });

  it("a correction's text and note are redacted before they are stored", () => {
    process.env.OPENAI_API_KEY = SECRET;
    const store = new RunStore(runsDir);
    const os = store.listRuns().find((r) => r.graph === "OpenScholar")!.runId;
    const c = store.correct(os, { kind: "answer", nodeId: "cite", text: `Better answer [0]. ${SECRET}`, note: `pasted ${SECRET} by mistake` });
    expect(JSON.stringify(c)).not.toContain(SECRET);
    expect(readFileSync(join(runsDir, "corrections", `${os}.jsonl`), "utf8")).not.toContain(SECRET);
    expect(c.note).toBe("pasted [redacted] by mistake");
  });
});
