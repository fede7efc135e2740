import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MemoryCache, loadGraph, splitSentences, startRun, type Answer, type Claim, type Passage, type RunEvent, type Verdict } from "@citeflow/core";
import { createRegistry, JUDGE_ADAPTER_THRESHOLD, JUDGE_THRESHOLD, templatePath } from "@citeflow/nodes";
import { JUDGE_ADAPTER } from "@citeflow/models";
import { GEMMA } from "../models/local.js";
import { templateSuite } from "../scifact.js";
import { envServices } from "../helpers.js";

/**
 * Every template on the in-process Gemma 3 270M (a base model, so the answers are weak): each runs
 * end to end, its chat nodes' outputs parse, its progress events carry the text as it grows, a
 * second run is all cache hits, and a run aborted mid-generation resumes from its cache.
 */
const suite = templateSuite(60);
const registry = createRegistry();
const template = (name: string) => JSON.parse(readFileSync(templatePath(name), "utf8"));

/** The template with every chat node's maxTokens cut short, to keep the suite's time reasonable. */
function short(name: string, maxTokens = 48) {
  const doc = template(name);
  for (const n of doc.nodes) {
    const def = registry.get(n.type);
    // claims.extract's JSON quotes whole passage sentences (up to 300 characters each): cut at 48
    // tokens, a long sentence leaves it unclosed, which is an error.
    if (def && "maxTokens" in (def.params.shape as object)) n.params = { ...n.params, maxTokens: n.type === "claims.extract" ? Math.max(maxTokens, 256) : maxTokens };
  }
  return doc;
}

async function runIt(doc: unknown, question: string, o: { cache?: MemoryCache; abortOn?: (e: RunEvent) => boolean } = {}) {
  const handle = startRun(loadGraph(doc, registry), { services: envServices(), inputs: { question: { id: "q", text: question } }, ...(o.cache ? { cache: o.cache } : {}) });
  const events: RunEvent[] = [];
  for await (const e of handle.events) {
    events.push(e);
    if (o.abortOn?.(e)) handle.abort();
  }
  const result = await handle.result;
  return { result, events, byId: Object.fromEntries(result.nodes.map((n) => [n.id, n])) };
}

/** A claim (the question) judged by verify.llm with these params, over two lexically retrieved passages. */
const judgeGraph = (params: Record<string, unknown>) => ({
  citeflow: 1,
  name: "judge",
  inputs: { question: { type: "Question" } },
  nodes: [
    { id: "question", type: "input.question", params: {} },
    { id: "retrieve", type: "retrieve.lexical", params: { k: 2 } },
    { id: "claim", type: "claims.from-question", params: {} },
    { id: "verify", type: "verify.llm", params },
  ],
  edges: ["question.question retrieve.question", "question.question claim.question", "retrieve.passages claim.passages", "claim.claims verify.claims", "retrieve.passages verify.passages"].map(
    (e) => ({ from: e.split(" ")[0]!, to: e.split(" ")[1]! }),
  ),
});

const modelSpans = (events: RunEvent[]) => events.filter((e) => e.type === "span-end" && (e as { data?: { baseURL?: string } }).data?.baseURL === "in-process");

describe("templates on the in-process LLM (Gemma 3 270M GGUF)", { timeout: 300_000 }, () => {
  const setup = () => {
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = GEMMA;
    process.env.CITEFLOW_RERANK_MODEL = "pair-rerank-scifact";
  };

  for (const [name, answerNode, chatNodes] of [
    ["verifai", "answer", ["answer"]],
    ["core-gpt", "answer", ["enrich", "answer"]],
    // Its check is the reranker's: the model is asked again only for a second hop.
    ["arxivbot", "answer", ["query", "claims", "answer"]],
    ["openscholar", "cite", ["draft", "feedback"]],
    ["synth-openscholar", "cite", ["draft", "feedback", "pairwise", "rubric"]],
  ] as const) {
    it(`${name}: runs end to end, every chat node on the local model, citations resolve or are counted`, async () => {
      setup();
      const r = await runIt(short(name), suite.docs[3]!.title);
      expect(r.result.status, JSON.stringify(r.result.nodes.find((n) => n.error)?.error)).toBe("ok");
      const answer = r.byId[answerNode]!.outputs!.answer as Answer;
      expect(answer.text.trim().length).toBeGreaterThan(0);
      const given = new Set(Object.values(answer.citations));
      expect(given.size).toBeLessThanOrEqual(Object.keys(answer.citations).length);
      const hallucinated = (r.byId.citations!.outputs!.metrics as { hallucinatedCitations: number }).hallucinatedCitations;
      expect(hallucinated).toBe(answer.invalidCitations.length);
      const spans = modelSpans(r.events);
      const called = new Set(spans.map((e) => (e as { nodeId: string }).nodeId));
      // A pairwise judge with two identical answers (feedback left the quoted draft as it was) decides "same" without asking.
      const asks = chatNodes.filter((node) => !(node === "pairwise" && r.byId.pairwise!.outputs!.decision === "same"));
      for (const node of asks) expect(called, `node ${node} made no in-process model call`).toContain(node);
      // Every call generated, but generate.answer's refusal check, which scores the refusal's tokens (its noAnswerAt) and writes none.
      for (const s of spans) {
        const data = (s as { data: { usage: { completionTokens: number }; noAnswerAt?: number } }).data;
        if (data.noAnswerAt === undefined) expect(data.usage.completionTokens).toBeGreaterThan(0);
      }
      // arXivBot's claims quote their passages (claims.extract's quote, on by default): each is a sentence of the passage it cites.
      if (name === "arxivbot") {
        const passages = r.byId.top3!.outputs!.items as Passage[];
        for (const c of r.byId.claims!.outputs!.claims as Claim[]) expect(splitSentences(passages.find((p) => p.id === c.passageIds[0])!.text).map((x) => x.trim())).toContain(c.text);
      }
    });
  }

  it("progress events carry the answer as it grows; a second run is all cache hits", async () => {
    setup();
    const cache = new MemoryCache();
    const first = await runIt(short("verifai", 64), suite.docs[8]!.title, { cache });
    expect(first.result.status).toBe("ok");
    // (A model's first use also says it is loading, and then that it loaded, and each call that it reads the prompt
    // before the first token: those are not the answer.)
    expect(first.events.some((e) => e.type === "node-progress" && e.nodeId === "answer" && /^reading the prompt \([\d,]+ characters\) before the first token$/.test(e.message ?? ""))).toBe(true);
    const progress = first.events.filter(
      (e): e is Extract<RunEvent, { type: "node-progress" }> => e.type === "node-progress" && e.nodeId === "answer" && !/^loading |loaded in [\d.]+ s$|^reading the prompt /.test(e.message ?? ""),
    );
    expect(progress.length).toBeGreaterThan(0);
    const final = (first.byId.answer!.outputs!.answer as Answer).text;
    for (const p of progress) expect(final.startsWith(p.message!.trim().slice(0, 20)) || final.includes(p.message!.trim().slice(0, 20))).toBe(true);
    const again = await runIt(short("verifai", 64), suite.docs[8]!.title, { cache });
    expect(again.result.nodes.map((n) => n.cache)).toEqual(again.result.nodes.map(() => "hit"));
  });

  it("verify.llm scores true and false: the verdict carries P(true), the threshold moves the cut, and the trace keeps both scores", async () => {
    setup();
    const judge = (threshold?: number) => judgeGraph(threshold === undefined ? {} : { threshold });
    const base = await runIt(judge(), suite.docs[3]!.title);
    expect(base.result.status).toBe("ok");
    const [v] = base.byId.verify!.outputs!.verdicts as Array<{ label: string; probabilities: Record<string, number> }>;
    const span = modelSpans(base.events).at(-1) as unknown as { data: { choices: string[]; choiceLogprobs: number[]; response: string } };
    expect(span.data.choices).toEqual(['{"answer":"true"}', '{"answer":"false"}']);
    const [t, f] = span.data.choiceLogprobs;
    expect(v!.probabilities.SUPPORT).toBeCloseTo(1 / (1 + Math.exp(f! - t!)), 12);
    expect(v!.probabilities.SUPPORT! + v!.probabilities.CONTRADICT!).toBeCloseTo(1, 12);
    // The default threshold (chosen on dev claims for Gemma 3 270M) decides; the response is the likelier answer.
    expect(v!.label).toBe(t! - f! > JUDGE_THRESHOLD ? "SUPPORT" : "CONTRADICT");
    expect(span.data.response).toBe(t! > f! ? '{"answer":"true"}' : '{"answer":"false"}');
    // A threshold just past the score flips the verdict; the probabilities stay the model's.
    const d = t! - f!;
    for (const [threshold, label] of [
      [d + 0.01, "CONTRADICT"],
      [d - 0.01, "SUPPORT"],
    ] as const) {
      const r = await runIt(judge(threshold), suite.docs[3]!.title);
      const [w] = r.byId.verify!.outputs!.verdicts as Array<{ label: string; probabilities: Record<string, number> }>;
      expect(w!.label).toBe(label);
      expect(w!.probabilities).toEqual(v!.probabilities);
    }
  });

  it("verify.llm with Citeflow's judge adapter gives a calibrated verdict: CANNOT_TELL inside the band chosen on dev, the threshold's answer as its forced choice", async () => {
    setup();
    // The shipped adapter by its file (the suites' models home is empty): verify.llm knows it as Citeflow's judge either way.
    const model = `${GEMMA}+${fileURLToPath(new URL(`../../models/${JUDGE_ADAPTER}/adapter.gguf`, import.meta.url))}`;
    const r = await runIt(judgeGraph({ model }), suite.docs[3]!.title);
    expect(r.result.status, JSON.stringify(r.result.nodes.find((n) => n.error)?.error)).toBe("ok");
    const [v] = r.byId.verify!.outputs!.verdicts as Verdict[];
    const [t, f] = (modelSpans(r.events).at(-1) as unknown as { data: { choiceLogprobs: number[] } }).data.choiceLogprobs;
    const c = v!.calibration!;
    // The calibration chosen for it is the one beside it (calibration.json, listed in its SHA256SUMS).
    const chosen = JSON.parse(readFileSync(fileURLToPath(new URL(`../../models/${JUDGE_ADAPTER}/calibration.json`, import.meta.url)), "utf8"));
    expect(c.rule).toBe(chosen.rule);
    expect(c.band).toEqual(chosen.band);
    expect(c.pSupport).toBeCloseTo(1 / (1 + Math.exp(-(chosen.slope * (t! - f!) + chosen.intercept))), 9);
    expect(v!.label).toBe(c.pSupport >= c.band[1] ? "SUPPORT" : c.pSupport <= c.band[0] ? "CONTRADICT" : "CANNOT_TELL");
    expect(c.forced).toBe(t! - f! > JUDGE_ADAPTER_THRESHOLD ? "SUPPORT" : "CONTRADICT");
    // A band set on the node overrides the chosen one: the widest gives no verdict.
    const wide = await runIt(judgeGraph({ model, band: [0, 1] }), suite.docs[3]!.title);
    expect((wide.byId.verify!.outputs!.verdicts as Verdict[])[0]!.label).toBe("CANNOT_TELL");
  });

  it("check.sufficiency scores enough against not: the threshold moves the cut, and not enough searches the question itself", async () => {
    setup();
    const check = (threshold?: number) => ({
      citeflow: 1,
      name: "enough",
      inputs: { question: { type: "Question" } },
      nodes: [
        { id: "question", type: "input.question", params: {} },
        { id: "retrieve", type: "retrieve.lexical", params: { k: 2 } },
        { id: "claim", type: "claims.from-question", params: {} },
        // Its second hop's claims quote whole sentences: room for them (see short).
        { id: "enough", type: "check.sufficiency", params: { maxTokens: 256, ...(threshold === undefined ? {} : { threshold }) } },
      ],
      edges: [
        "question.question retrieve.question",
        "question.question claim.question",
        "retrieve.passages claim.passages",
        "question.question enough.question",
        "claim.claims enough.claims",
        "retrieve.passages enough.passages",
      ].map((e) => ({ from: e.split(" ")[0]!, to: e.split(" ")[1]! })),
    });
    const question = suite.docs[3]!.title;
    const first = await runIt(check(), question);
    expect(first.result.status).toBe("ok");
    const span = modelSpans(first.events).find((e) => (e as { nodeId: string }).nodeId === "enough") as unknown as { data: { choices: string[]; choiceLogprobs: number[] } };
    expect(span.data.choices).toEqual(['{"reasoning":"","sufficient":true,"query":""}', JSON.stringify({ reasoning: "", sufficient: false, query: question })]);
    const [yes, no] = span.data.choiceLogprobs;
    const d = yes! - no!;
    expect(first.byId.enough!.outputs!.decision).toBe(d > 0 ? "sufficient" : `second hop: ${question}`);
    for (const [threshold, decision] of [
      [d + 0.01, `second hop: ${question}`],
      [d - 0.01, "sufficient"],
    ] as const) {
      const r = await runIt(check(threshold), question);
      expect(r.byId.enough!.outputs!.decision).toBe(decision);
    }
  });

  it("a run aborted mid-generation resumes: what finished comes from the cache, the answer is generated", async () => {
    setup();
    const cache = new MemoryCache();
    const doc = short("core-gpt", 200);
    const aborted = await runIt(doc, suite.docs[11]!.title, { cache, abortOn: (e) => e.type === "node-progress" && e.nodeId === "answer" });
    expect(aborted.result.status).toBe("aborted");
    expect(aborted.byId.answer!.status).toBe("aborted");
    const resumed = await runIt(doc, suite.docs[11]!.title, { cache });
    expect(resumed.result.status).toBe("ok");
    expect(resumed.byId.retrieve!.cache).toBe("hit");
    expect(resumed.byId.answer!.cache).toBe("miss");
    expect((resumed.byId.answer!.outputs!.answer as Answer).text.length).toBeGreaterThan(0);
  });
});
