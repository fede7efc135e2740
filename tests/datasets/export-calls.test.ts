import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closestSentences, loadGraph, splitSentences, startRun, type Passage } from "@citeflow/core";
import { createRegistry } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { exportDataset } from "@citeflow/datasets";
import { completion, json } from "../models/loopback.js";
import { templateSuite } from "../scifact.js";
import { doc, envServices, readJsonl } from "../helpers.js";

// Training rows from the calls of single nodes: the reranker's pairs from rate.relevance, the judge's
// rows from verify.llm, and the structured nodes' rows; each with a scripted LLM on loopback.
const suite = templateSuite(60);
const registry = createRegistry();
const DATA_DIR = join(process.env.CITEFLOW_DATA!, "scifact");
/** A graph of these nodes taking a Question (edges "a.out -> b.in"). */
const graph = (nodes: Parameters<typeof doc>[0], edges: string[]) => doc(nodes, edges, { question: { type: "Question" } });

describe("reranker pairs", () => {
  const graphDoc = graph({ question: ["input.question"], retrieve: ["retrieve.lexical", { k: 6 }], rate: ["rate.relevance"] }, [
    "question.question -> retrieve.question",
    "question.question -> rate.question",
    "retrieve.passages -> rate.passages",
  ]);
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
    const scored = readJsonl(join(out, "train.jsonl"));
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
    const triplets = readJsonl(join(out2, "train.jsonl"));
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
    const first = readJsonl(join(out, "train.jsonl")).find((x) => x.metadata.passageIds[0] === rated[0]!.id)!;
    expect([first.label, first.metadata.corrections.length]).toEqual([0, 1]);

    const retrieved = store.nodeOutput(runId, "retrieve", "passages") as Array<{ id: string }>;
    const doc = retrieved[2]!.id.split("#")[0];
    const qrels = join(mkdtempSync(join(tmpdir(), "citeflow-qrels-")), "qrels.tsv");
    writeFileSync(qrels, `query-id\tcorpus-id\tscore\nrq1\t${doc}\t1\n`);
    const out2 = mkdtempSync(join(tmpdir(), "citeflow-rerank-"));
    exportDataset({ runs: rerankRuns, services: envServices(), format: "rerank-scored", out: out2, split: 1, qrels });
    const fromQrels = readJsonl(join(out2, "train.jsonl")).filter((x) => x.metadata.nodeId === "retrieve");
    expect(fromQrels.length).toBe(retrieved.length);
    // qrels judge documents: every retrieved chunk of the relevant paper is a positive.
    expect(fromQrels.filter((x) => x.label === 1).map((x) => x.metadata.passageIds[0])).toEqual(retrieved.filter((p) => p.id.startsWith(`${doc}#`)).map((p) => p.id));
    expect(readFileSync(join(out2, "README.md"), "utf8")).toContain(`--qrels ${qrels}`);
  });
});

describe("verification rows (verify.llm: OpenScholar's true/false judge)", () => {
  const graphDoc = graph({ question: ["input.question"], retrieve: ["retrieve.lexical", { k: 3 }], claim: ["claims.from-question"], verify: ["verify.llm"] }, [
    "question.question -> retrieve.question",
    "question.question -> claim.question",
    "retrieve.passages -> claim.passages",
    "claim.claims -> verify.claims",
    "retrieve.passages -> verify.passages",
  ]);

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
    const rows = readJsonl(join(out, "train.jsonl"));
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
    expect(readJsonl(join(plain, "train.jsonl")).map((r) => r.completion)).toEqual([[{ role: "assistant", content: "true" }], [{ role: "assistant", content: "true" }]]);
  });

  it("with sentences, the judge reads each passage cut to its sentences most like the claim, and the row is that prompt", async () => {
    const server = await suite.serve((_req, res) => json(res, 200, completion("false")));
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "judge-model";
    process.env.OPENAI_BASE_URL = server.url;
    const cut = structuredClone(graphDoc);
    cut.nodes.find((n) => n.id === "verify")!.params = { sentences: 1 };
    const runs = mkdtempSync(join(tmpdir(), "citeflow-judge-runs-"));
    const store = new RunStore(runs);
    const claim = suite.docs[10]!.title;
    const r = await startRun(loadGraph(cut, registry), { ...store.runOptions(), services: envServices(), inputs: { question: { id: "v1", text: claim } } }).result;
    expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
    const passages = r.nodes.find((n) => n.id === "retrieve")!.outputs!.passages as Passage[];
    const prompt: string = server.requests.at(-1)!.body.messages[0].content;
    for (const p of passages) {
      const kept = closestSentences(p.text, claim, 1);
      expect(splitSentences(p.text).length).toBeGreaterThan(1);
      expect(prompt).toContain(`${p.title}\n${kept}\n`);
      for (const other of splitSentences(p.text).filter((x) => !kept.includes(x))) expect(prompt).not.toContain(other);
    }
    const out = mkdtempSync(join(tmpdir(), "citeflow-judge-sft-"));
    exportDataset({ runs, services: envServices(), format: "sft-completion", out, split: 1 });
    expect(readJsonl(join(out, "train.jsonl"))[0]!.prompt[0].content).toBe(prompt);
  });
});

describe("bench/judge-claim-alone.citeflow.json (the judge's ablation)", () => {
  it("sends verify.llm's prompt with no passages in it: the claim alone", async () => {
    const server = await suite.serve((_req, res) => json(res, 200, completion("true")));
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "judge-model";
    process.env.OPENAI_BASE_URL = server.url;
    const claim = suite.docs[10]!.title;
    const g = loadGraph(JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "bench", "judge-claim-alone.citeflow.json"), "utf8")), registry);
    const r = await startRun(g, { services: envServices(), inputs: { question: { id: "a1", text: claim } } }).result;
    expect(r.status, JSON.stringify(r.nodes.find((n) => n.error)?.error)).toBe("ok");
    expect(r.nodes.find((n) => n.id === "retrieve")!.outputs!.passages).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
    const prompt: string = server.requests[0]!.body.messages[0].content;
    expect(prompt).toContain(`Claim: ${claim}\nAnswer:`);
    expect(prompt).not.toMatch(/^\[1\]/m);
  });
});

describe("structured nodes' calls (query.enrich, rate.relevance, claims.extract, check.sufficiency)", () => {
  const graphDoc = graph(
    {
      question: ["input.question"],
      enrich: ["query.enrich"],
      retrieve: ["retrieve.lexical", { k: 3 }],
      rate: ["rate.relevance", {}, 2],
      claims: ["claims.extract", {}, 2],
      check: ["check.sufficiency", { k: 2 }, 3],
    },
    [
      "question.question -> enrich.question",
      "enrich.query -> retrieve.query",
      "question.question -> rate.question",
      "retrieve.passages -> rate.passages",
      "question.question -> claims.question",
      "rate.passages -> claims.passages",
      "question.question -> check.question",
      "claims.claims -> check.claims",
      "rate.passages -> check.passages",
    ],
  );

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
    const rows = readJsonl(join(out, "train.jsonl"));
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
    const unlabelled = readJsonl(join(plain, "train.jsonl"));
    expect(unlabelled.filter((x) => x.metadata.nodeType === "claims.extract").map(reply)).toEqual(["[1] A claim the model made."]);
    expect(unlabelled.filter((x) => x.metadata.nodeType === "rate.relevance").map(reply)).toEqual(rated.map((p) => (p.id === other.id ? "Rating: 5" : "Rating: 3")));
  });
});
