import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { loadGraph, startRun } from "@citeflow/core";
import { createRegistry, templatePath } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { dedupe, exportDataset, split, type Row } from "@citeflow/datasets";
import { completion, json } from "../models/loopback.js";
import { templateSuite } from "../scifact.js";
import { envServices } from "../helpers.js";

const SECRET = "sk-planted-export-key-0123456789abcdef";
const DRAFT = "The first study found a clear effect on the outcome measured in this cohort [0].";
const FINAL = DRAFT + " A second study confirmed it in a larger and older population, with similar methods [1].";

const suite = templateSuite(60, "CITEFLOW_RERANK_MODEL", "OPENAI_API_KEY");
const registry = createRegistry();
const runsDir = mkdtempSync(join(tmpdir(), "citeflow-export-runs-"));
const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const DATASETS = fileURLToPath(new URL("../../packages/datasets/dist/index.js", import.meta.url));
const NODES = fileURLToPath(new URL("../../packages/nodes/dist/index.js", import.meta.url));
const DATA_DIR = join(process.env.CITEFLOW_DATA!, "scifact");

async function runTemplate(name: string, question: string) {
  const store = new RunStore(runsDir);
  const g = loadGraph(readFileSync(templatePath(name), "utf8"), registry);
  const r = await startRun(g, { ...store.runOptions(), services: envServices(), inputs: { question: { id: `q-${question.length}-${name}`, text: question } } }).result;
  expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
  return r.runId;
}

const read = (dir: string, file: string) =>
  readFileSync(join(dir, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

function exportTo(format: Parameters<typeof exportDataset>[0]["format"], extra: Partial<Parameters<typeof exportDataset>[0]> = {}) {
  const out = mkdtempSync(join(tmpdir(), `citeflow-export-${format}-`));
  const result = exportDataset({ runs: runsDir, services: envServices(), format, out, split: 1, ...extra });
  return { out, result, rows: read(out, "train.jsonl") };
}

describe("exports from template runs (scripted LLM on loopback)", () => {
  beforeAll(async () => {
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      if (user.includes("Write a concise")) return json(res, 200, completion(DRAFT));
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
    // Verif.ai offline (extractive answer) for NLI rows; the planted key also sits in a question.
    delete process.env.CITEFLOW_CHAT_MODEL;
    for (const d of suite.docs.slice(3, 6)) await runTemplate("verifai", d.title);
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

  it("nli: premise/hypothesis/label/label_id with the card's label map", () => {
    const { rows, out } = exportTo("nli");
    expect(rows.length).toBeGreaterThan(0);
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

  it("NLI rows of one question stay on one side of the split, whatever their claims", () => {
    const out = mkdtempSync(join(tmpdir(), "citeflow-export-nli-split-"));
    exportDataset({ runs: runsDir, services: envServices(), format: "nli", out, split: 0.5, seed: 3 });
    const side = new Map<string, Set<string>>();
    for (const file of ["train.jsonl", "validation.jsonl"])
      for (const r of existsSync(join(out, file)) ? read(out, file) : []) side.set(r.metadata.runId, new Set([...(side.get(r.metadata.runId) ?? []), file]));
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
    expect(new Set(read(out, "train.jsonl").map((row) => row.metadata.runId))).toEqual(new Set([one.runId]));
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
    expect(read(out, "train.jsonl").every((row) => !("metadata" in row))).toBe(true);
    const bad = spawnSync(process.execPath, [BIN, "export", "--runs", runsDir, "--format", "parquet", "--out", out], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--format parquet: use one of sft, sft-completion, openscholar, dpo, dpo-openai, kto, nli");
  });
});

describe("corrections", () => {
  it("a corrected verdict and a corrected answer win in the exports; the run is never changed", async () => {
    const store = new RunStore(runsDir);
    const runs = store.listRuns();
    const vf = runs.find((r) => r.graph === "Verif.ai")!.runId;
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
    const vf = runs.find((r) => r.graph === "Verif.ai")!.runId;
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
    const rows = read(out, "train.jsonl");
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

describe("reranker pairs", () => {
  const graphDoc = {
    citeflow: 1,
    name: "rate",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "question", type: "input.question", version: 1, params: {} },
      { id: "retrieve", type: "retrieve.lexical", version: 1, params: { k: 6 } },
      { id: "rate", type: "rate.relevance", version: 1, params: {} },
    ],
    edges: ["question.question -> retrieve.question", "question.question -> rate.question", "retrieve.passages -> rate.passages"].map((e) => ({ from: e.split(" -> ")[0]!, to: e.split(" -> ")[1]! })),
  };
  const rerankRuns = mkdtempSync(join(tmpdir(), "citeflow-rerank-runs-"));
  let runId = "";

  it("from LLM ratings: 4–5 positive, 1–2 negative, 3 dropped; triplets and scored pairs", async () => {
    // Ratings by position in the list: 5, 4, 3, 2, 1, 1.
    const ratings = [5, 4, 3, 2, 1, 1];
    const server = await suite.serve((req, res) => json(res, 200, completion(`Thinking it over.\nRating: ${ratings[req.n % 6]}`)));
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "rater";
    process.env.OPENAI_BASE_URL = server.url;
    const store = new RunStore(rerankRuns);
    const g = loadGraph(graphDoc, registry);
    const r = await startRun(g, { ...store.runOptions(), services: envServices(), concurrency: 1, inputs: { question: { id: "rq1", text: suite.docs[8]!.title } } }).result;
    expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
    runId = r.runId;
    const rated = store.nodeOutput(runId, "rate", "passages") as Array<{ id: string; scores: Record<string, number> }>;
    expect(rated.map((p) => p.scores.relevance)).toEqual(ratings);

    const out = mkdtempSync(join(tmpdir(), "citeflow-rerank-"));
    exportDataset({ runs: rerankRuns, services: envServices(), format: "rerank-scored", out, split: 1 });
    const scored = read(out, "train.jsonl");
    expect(scored.map((x) => [x.label, x.score])).toEqual([
      [1, 5],
      [1, 4],
      [0, 2],
      [0, 1],
      [0, 1],
    ]);
    expect(Object.keys(scored[0]!).sort()).toEqual(["label", "metadata", "passage", "query", "score"]);

    const out2 = mkdtempSync(join(tmpdir(), "citeflow-rerank-"));
    exportDataset({ runs: rerankRuns, services: envServices(), format: "rerank", out: out2, split: 1 });
    const triplets = read(out2, "train.jsonl");
    expect(triplets.length).toBe(2 * 3);
    expect(Object.keys(triplets[0]!).sort()).toEqual(["metadata", "negative", "positive", "query"]);
    expect(triplets[0]!.query).toBe(suite.docs[8]!.title);
    expect(triplets[0]!.positive).toContain((store.nodeOutput(runId, "rate", "passages") as Array<{ text: string }>)[0]!.text.slice(0, 40));
  });

  it("a relevance correction wins over the rating; qrels judge the first retriever's list", () => {
    const store = new RunStore(rerankRuns);
    const rated = store.nodeOutput(runId, "rate", "passages") as Array<{ id: string; title: string }>;
    store.correct(runId, { kind: "relevance", nodeId: "rate", passageId: rated[0]!.id, relevant: false, note: "off topic" });
    const out = mkdtempSync(join(tmpdir(), "citeflow-rerank-"));
    exportDataset({ runs: rerankRuns, services: envServices(), format: "rerank-scored", out, split: 1 });
    const first = read(out, "train.jsonl").find((x) => x.metadata.passageIds[0] === rated[0]!.id)!;
    expect([first.label, first.metadata.corrections.length]).toEqual([0, 1]);

    const retrieved = store.nodeOutput(runId, "retrieve", "passages") as Array<{ id: string }>;
    const doc = retrieved[2]!.id.split("#")[0];
    const qrels = join(mkdtempSync(join(tmpdir(), "citeflow-qrels-")), "qrels.tsv");
    writeFileSync(qrels, `query-id\tcorpus-id\tscore\nrq1\t${doc}\t1\n`);
    const out2 = mkdtempSync(join(tmpdir(), "citeflow-rerank-"));
    exportDataset({ runs: rerankRuns, services: envServices(), format: "rerank-scored", out: out2, split: 1, qrels });
    const fromQrels = read(out2, "train.jsonl").filter((x) => x.metadata.nodeId === "retrieve");
    expect(fromQrels.length).toBe(retrieved.length);
    // qrels judge documents: every retrieved chunk of the relevant paper is a positive.
    expect(fromQrels.filter((x) => x.label === 1).map((x) => x.metadata.passageIds[0])).toEqual(retrieved.filter((p) => p.id.startsWith(`${doc}#`)).map((p) => p.id));
    expect(readFileSync(join(out2, "README.md"), "utf8")).toContain(`--qrels ${qrels}`);
  });
});

describe("verification rows (verify.llm: OpenScholar's true/false judge)", () => {
  const graphDoc = {
    citeflow: 1,
    name: "judge",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "question", type: "input.question", version: 1, params: {} },
      { id: "retrieve", type: "retrieve.lexical", version: 1, params: { k: 3 } },
      { id: "claim", type: "claims.from-question", version: 1, params: {} },
      { id: "verify", type: "verify.llm", version: 1, params: {} },
    ],
    edges: [
      "question.question -> retrieve.question",
      "question.question -> claim.question",
      "retrieve.passages -> claim.passages",
      "claim.claims -> verify.claims",
      "retrieve.passages -> verify.passages",
    ].map((e) => ({ from: e.split(" -> ")[0]!, to: e.split(" -> ")[1]! })),
  };

  it("sft rows of the judge's own prompt; the labels' truth (true only when supported) and a user's verdict correction are the targets", async () => {
    const server = await suite.serve((_req, res) => json(res, 200, completion("true")));
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "judge-model";
    process.env.OPENAI_BASE_URL = server.url;
    const runs = mkdtempSync(join(tmpdir(), "citeflow-judge-runs-"));
    const store = new RunStore(runs);
    const g = loadGraph(graphDoc, registry);
    const questions = [
      { id: "v1", text: suite.docs[10]!.title },
      { id: "v2", text: suite.docs[11]!.title },
      { id: "v3", text: suite.docs[12]!.title },
    ];
    const ids: string[] = [];
    for (const q of questions) {
      const r = await startRun(g, { ...store.runOptions(), services: envServices(), inputs: { question: q } }).result;
      expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
      ids.push(r.runId);
    }
    // v1 is supported, v2 contradicted; v3 is not labelled, and a user corrects its verdict.
    const dir = mkdtempSync(join(tmpdir(), "citeflow-judge-labels-"));
    writeFileSync(join(dir, "corpus.jsonl"), JSON.stringify({ doc_id: 1, title: "t", abstract: ["Evidence one."] }) + "\n");
    writeFileSync(
      join(dir, "claims.jsonl"),
      [
        { id: "v1", claim: questions[0]!.text, evidence: { "1": [{ sentences: [0], label: "SUPPORT" }] } },
        { id: "v2", claim: questions[1]!.text, evidence: { "1": [{ sentences: [0], label: "CONTRADICT" }] } },
      ]
        .map((c) => JSON.stringify(c) + "\n")
        .join(""),
    );
    const fix = store.correct(ids[2]!, { kind: "verdict", nodeId: "verify", claimId: "v3", label: "CONTRADICT" });
    const out = mkdtempSync(join(tmpdir(), "citeflow-judge-sft-"));
    exportDataset({ runs, services: envServices(), format: "sft", out, split: 1, labels: { claims: join(dir, "claims.jsonl"), corpus: join(dir, "corpus.jsonl") } });
    const rows = read(out, "train.jsonl");
    expect(rows.map((r) => r.messages.at(-1))).toEqual([
      { role: "assistant", content: "true" },
      { role: "assistant", content: "false" },
      { role: "assistant", content: "false" },
    ]);
    // The prompt is the call's own, as the judge's span recorded it.
    const traced = store
      .readRun(ids[0]!)
      .nodes.find((n) => n.id === "verify")!
      .spans.find((sp) => sp.name === "judge")!;
    expect(rows[0]!.messages.slice(0, -1)).toEqual(store.spanData(traced)!.messages);
    expect(rows[0]!.messages[0].content).toContain(questions[0]!.text);
    expect(rows.map((r) => [r.metadata.nodeId, r.metadata.models, r.metadata.sources[0] ?? null, r.metadata.corrections ?? null])).toEqual([
      ["verify", { judge: "judge-model" }, "labels", null],
      ["verify", { judge: "judge-model" }, "labels", null],
      ["verify", { judge: "judge-model" }, "scifact", [fix.id]],
    ]);
    // Without labels or corrections a row teaches what the judge said.
    const plain = mkdtempSync(join(tmpdir(), "citeflow-judge-sft-"));
    exportDataset({ runs, services: envServices(), format: "sft-completion", out: plain, split: 1, runIds: ids.slice(0, 2) });
    expect(read(plain, "train.jsonl").map((r) => r.completion)).toEqual([[{ role: "assistant", content: "true" }], [{ role: "assistant", content: "true" }]]);
  });
});

describe("structured nodes' calls (query.enrich, rate.relevance, claims.extract, check.sufficiency)", () => {
  const graphDoc = {
    citeflow: 1,
    name: "structured",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "question", type: "input.question", version: 1, params: {} },
      { id: "enrich", type: "query.enrich", version: 1, params: {} },
      { id: "retrieve", type: "retrieve.lexical", version: 1, params: { k: 3 } },
      { id: "rate", type: "rate.relevance", version: 2, params: {} },
      { id: "claims", type: "claims.extract", version: 2, params: {} },
      { id: "check", type: "check.sufficiency", version: 3, params: { k: 2 } },
    ],
    edges: [
      "question.question -> enrich.question",
      "enrich.query -> retrieve.query",
      "question.question -> rate.question",
      "retrieve.passages -> rate.passages",
      "question.question -> claims.question",
      "rate.passages -> claims.passages",
      "question.question -> check.question",
      "claims.claims -> check.claims",
      "rate.passages -> check.passages",
    ].map((e) => ({ from: e.split(" -> ")[0]!, to: e.split(" -> ")[1]! })),
  };

  it("sft rows of each call's own prompt; the labels give the targets (rationales, enough or not, relevant or not), a relevance correction wins, and without labels the row teaches the response", async () => {
    const doc = suite.docs[10]!;
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      if (user.startsWith("Turn the research question")) return json(res, 200, completion(doc.title));
      if (user.startsWith("Rate how useful")) return json(res, 200, completion("Rating: 3"));
      if (user.startsWith("From the passages below")) return json(res, 200, completion("[1] A claim the model made."));
      if (user.startsWith("Decide whether")) return json(res, 200, completion(`Thinking.\nAnswer: ${suite.docs[11]!.title}`));
      return json(res, 500, { error: { message: `unscripted prompt: ${user.slice(0, 40)}` } });
    });
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "loopback-model";
    process.env.OPENAI_BASE_URL = server.url;
    const runs = mkdtempSync(join(tmpdir(), "citeflow-structured-runs-"));
    const store = new RunStore(runs);
    const question = { id: "s1", text: doc.title };
    const r = await startRun(loadGraph(graphDoc, registry), { ...store.runOptions(), services: envServices(), inputs: { question } }).result;
    expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
    const record = store.readRun(r.runId);
    const outputOf = (id: string) => store.outputOf(record.nodes.find((n) => n.id === id)!) as Record<string, any>;
    const rated = outputOf("rate").passages as Array<{ id: string; text: string }>;
    const all = outputOf("check").passages as Array<{ id: string; text: string }>;
    const found = all.slice(rated.length);
    expect(found.length).toBeGreaterThan(0); // the second hop found passages

    // The claim is labelled: its rationale is the first sentence of the document it is the title of.
    const rationale = readFileSync(join(DATA_DIR, "corpus.jsonl"), "utf8")
      .split("\n")
      .map((l) => (l ? JSON.parse(l) : undefined))
      .find((d) => d && String(d.doc_id) === doc.docId)
      .abstract[0].trim() as string;
    const dir = mkdtempSync(join(tmpdir(), "citeflow-structured-labels-"));
    writeFileSync(join(dir, "claims.jsonl"), JSON.stringify({ id: "s1", claim: doc.title, evidence: { [doc.docId]: [{ sentences: [0], label: "SUPPORT" }] }, cited_doc_ids: [doc.docId] }) + "\n");
    const other = rated.find((p) => !p.id.startsWith(`${doc.docId}#`))!;
    const fix = store.correct(r.runId, { kind: "relevance", nodeId: "rate", passageId: other.id, relevant: true });
    const out = mkdtempSync(join(tmpdir(), "citeflow-structured-sft-"));
    exportDataset({ runs, services: envServices(), format: "sft", out, split: 1, labels: { claims: join(dir, "claims.jsonl"), corpus: join(DATA_DIR, "corpus.jsonl") } });
    const rows = read(out, "train.jsonl");
    const reply = (r: Record<string, any>) => r.messages.at(-1).content as string;
    const of = (type: string) => rows.filter((x) => x.metadata.nodeType === type);
    expect(rows.map((x) => x.metadata.nodeType)).toEqual(["query.enrich", ...rated.map(() => "rate.relevance"), "claims.extract", "check.sufficiency", "check.sufficiency"]);

    // Each row's prompt is the call's own, as its span traced it.
    const spans = (id: string) => record.nodes.find((n) => n.id === id)!.spans;
    expect(of("rate.relevance").map((x) => x.messages.slice(0, -1))).toEqual(spans("rate").map((sp) => store.spanData(sp)!.messages));
    expect(of("claims.extract")[0]!.messages.slice(0, -1)).toEqual(store.spanData(spans("claims")[0]!)!.messages);

    // No label says what the query should have been: the model's own.
    expect(reply(of("query.enrich")[0]!)).toBe(doc.title);
    expect(of("query.enrich")[0]!.metadata.sources).not.toContain("labels");
    // Relevant (5) when the passage is from an evidence document, else 1; the user's correction wins.
    expect(of("rate.relevance").map(reply)).toEqual(rated.map((p) => (p.id.startsWith(`${doc.docId}#`) || p.id === other.id ? "Rating: 5" : "Rating: 1")));
    expect(of("rate.relevance").map((x) => x.metadata.corrections ?? null)).toEqual(rated.map((p) => (p.id === other.id ? [fix.id] : null)));
    // The claims: the rationale, cited to each passage that shows it; the first hop's claim cites passage 1, which shows it: enough.
    const lines = (ps: Array<{ id: string; text: string }>) =>
      ps.flatMap((p, i) => (p.id.startsWith(`${doc.docId}#`) && p.text.includes(rationale) ? [`[${i + 1}] ${rationale}`] : [])).join("\n") || "None.";
    expect(rated[0]!.id.startsWith(`${doc.docId}#`)).toBe(true);
    expect(reply(of("claims.extract")[0]!)).toBe(lines(rated));
    const [check, hop] = of("check.sufficiency");
    expect(reply(check!)).toBe("Answer: No.");
    expect(hop!.messages[0].content).toMatch(/^From the passages below/);
    expect(reply(hop!)).toBe(lines(found));
    expect(hop!.metadata.passageIds).toEqual(found.map((p) => p.id));
    expect(rows.filter((x) => x !== of("query.enrich")[0]).every((x) => x.metadata.sources.includes("labels") || x.metadata.corrections)).toBe(true);

    // Without labels: each row teaches what the model said.
    const plain = mkdtempSync(join(tmpdir(), "citeflow-structured-sft-"));
    exportDataset({ runs, services: envServices(), format: "sft", out: plain, split: 1 });
    const unlabelled = read(plain, "train.jsonl");
    expect(unlabelled.filter((x) => x.metadata.nodeType === "claims.extract").map(reply)).toEqual(["[1] A claim the model made."]);
    expect(unlabelled.filter((x) => x.metadata.nodeType === "rate.relevance").map(reply)).toEqual(rated.map((p) => (p.id === other.id ? "Rating: 5" : "Rating: 3")));
  });
});

describe("dedupe and split", () => {
  const row = (key: string, text: string, data: Record<string, unknown> = { text }): Row => ({
    key,
    dedupText: text,
    data,
    provenance: { runId: "r", graph: "g", graphHash: "h", nodeId: "n", nodeType: "t", passageIds: [], docIds: [], models: {}, sources: [] },
  });

  it("drops exact duplicates and near duplicates (case, punctuation, spacing), keeping the first", () => {
    const r = dedupe([row("a", "Vitamin D helps."), row("a", "Vitamin D helps."), row("b", "vitamin  d, HELPS"), row("c", "Vitamin C helps.")]);
    expect(r.rows.map((x) => x.key)).toEqual(["a", "c"]);
    expect([r.exact, r.near]).toEqual([1, 1]);
  });

  it("keeps rows of one key on one side, changes with the seed, and rejects a bad ratio", () => {
    const rows = Array.from({ length: 200 }, (_, i) => row(`q${i % 50}`, `t${i}`));
    const s = split(rows, 0.8, 1);
    const trainKeys = new Set(s.train.map((r) => r.key));
    expect(s.validation.every((r) => !trainKeys.has(r.key))).toBe(true);
    expect(s.train.length).toBeGreaterThan(100);
    expect(split(rows, 0.8, 2).train.map((r) => r.key)).not.toEqual(s.train.map((r) => r.key));
    expect(() => split(rows, 1.5, 0)).toThrow(/--split 1.5/);
  });
});
