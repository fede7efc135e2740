import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toAnswer, type Answer, type Feedback, type Passage } from "@citeflow/core";
import { templatePath } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { completion, json } from "../models/loopback.js";
import { doc, run } from "../helpers.js";
import { templateSuite } from "../scifact.js";

const suite = templateSuite(60, "CITEFLOW_RERANK_MODEL");
const template = JSON.parse(readFileSync(templatePath("openscholar"), "utf8"));
const setup = () => {
  process.env.CITEFLOW_STORE = suite.store;
  process.env.CITEFLOW_RERANK_MODEL = "pair-rerank-scifact";
};

const DRAFT = "The first study found a clear effect on the outcome that was measured in this cohort [0].";
const LONGER = DRAFT + " A second study confirmed it in a larger and older population, with similar methods [1].";

describe("OpenScholar template", () => {
  it("with an LLM: draft → feedback (one asks for retrieval) → edits kept or discarded by length → post-hoc citations; all traced", async () => {
    const asked: Array<Array<{ role: string; content: string }>> = [];
    const server = await suite.serve((req, res) => {
      asked.push(req.body.messages);
      const user = req.body.messages.at(-1).content as string;
      if (user.includes("Write a concise")) return json(res, 200, completion(DRAFT));
      if (user.includes("You review")) return json(res, 200, completion(`Feedback: Add the second study.\nQuestion: ${suite.docs[30]!.title}\n\nFeedback: Be shorter.\nQuestion: none`));
      // The first edit lengthens the answer (kept); the second cuts it to a stub (discarded).
      return json(res, 200, completion(user.includes("Feedback: Add the second study.") ? LONGER : "Short."));
    });
    setup();
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const runs = new RunStore(mkdtempSync(join(tmpdir(), "citeflow-os-runs-")));
    const r = await run(template, { ...runs.runOptions(), inputs: { question: { id: "q", text: suite.docs[3]!.title } } });
    expect(r.result.status, JSON.stringify(r.result.nodes.find((n) => n.error)?.error)).toBe("ok");
    const loop = r.byId.feedback!.outputs!;
    expect((loop.feedback as Feedback[]).map((f) => [f.text, f.question ?? null])).toEqual([
      ["Add the second study.", suite.docs[30]!.title],
      ["Be shorter.", null],
    ]);
    expect((loop.answer as Answer).text).toBe(LONGER);
    const passages = loop.passages as Passage[];
    expect(passages.length).toBeGreaterThan((r.byId.top!.outputs!.items as Passage[]).length);
    expect(passages.map((p) => p.id.split("#")[0])).toContain(suite.docs[30]!.docId);
    const final = r.byId.cite!.outputs!.answer as Answer;
    expect(final.text.startsWith(LONGER.slice(0, 40))).toBe(true);
    expect(final.invalidCitations).toEqual([]);
    // The iterations are child spans: feedback → (retrieve, edit).
    const node = runs.readRun(r.result.runId).nodes.find((n) => n.id === "feedback")!;
    expect(node.spans.map((s) => s.name)).toEqual(["feedback", "feedback 1", "feedback 2"]);
    expect(node.spans[1]!.children.map((c) => c.name)).toEqual(["retrieve", "edit"]);
    expect(node.spans[1]!.data).toMatchObject({ kept: true });
    expect(node.spans[2]!.children.map((c) => c.name)).toEqual(["edit"]);
    expect(node.spans[2]!.data).toMatchObject({ kept: false });
    // The draft, the feedback and each edit start alike (system message, references; the question
    // too, until a feedback retrieval appends passages), so a model that keeps what it read (the
    // in-process one) reads the passages once.
    const [draft, review, ...edits] = asked.map((m) => m.map((x) => `${x.role}: ${x.content}`).join("\n"));
    const references = draft!.slice(0, draft!.indexOf("Question:"));
    expect(references).toContain(suite.docs[3]!.title);
    expect(review!.slice(0, draft!.indexOf("\n\nWrite a concise"))).toBe(draft!.slice(0, draft!.indexOf("\n\nWrite a concise")));
    expect(edits).toHaveLength(2);
    for (const edit of edits) expect(edit!.slice(0, references.length)).toBe(references);
  });

  it("offline: the extractive baseline answers and the loop says it was skipped", async () => {
    setup();
    delete process.env.CITEFLOW_CHAT_MODEL;
    const r = await run(template, { inputs: { question: { id: "q", text: suite.docs[4]!.title } } });
    expect(r.result.status).toBe("ok");
    expect(r.byId.feedback!.outputs!.feedback).toEqual([]);
    expect(r.events.some((e) => e.type === "node-log" && e.nodeId === "feedback" && /skipped: no LLM configured/.test(e.message))).toBe(true);
    expect((r.byId.cite!.outputs!.answer as Answer).text.length).toBeGreaterThan(0);
  });

  it("feedback that does not parse is a clear node error, and what finished is kept", async () => {
    const server = await suite.serve((req, res) => json(res, 200, completion((req.body.messages.at(-1).content as string).includes("You review") ? "Looks great to me!" : DRAFT)));
    setup();
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const r = await run(template, { inputs: { question: { id: "q", text: suite.docs[5]!.title } } });
    expect(r.byId.feedback!.status).toBe("error");
    expect(r.byId.feedback!.error!.message).toMatch(/feedback did not parse: expected items "Feedback: … Question: …", got "Looks great to me!"/);
    expect(r.byId.draft!.status).toBe("done");
    expect(r.byId.cite!.status).toBe("skipped");
  });
});

describe("cite.posthoc", () => {
  it("cites uncited sentences that match a passage; never deletes text", async () => {
    const passages = [
      { id: "1#0", title: "Aspirin", text: "Aspirin lowered the rate of stroke in older adults over five years.", metadata: {}, scores: {} },
      { id: "2#0", title: "Coffee", text: "Coffee drinking was not associated with heart disease in nurses.", metadata: {}, scores: {} },
    ];
    const text =
      "Aspirin lowered the rate of stroke in older adults in a long trial.\n\nCoffee drinking was not associated with heart disease [0]. Unrelated remarks about the weather in spring are here.";
    const d = doc({ a: ["test.any", { value: toAnswer(text, passages, { base: 0 }) }], p: ["test.any", { value: passages }], c: ["cite.posthoc"] }, ["a.out->c.answer", "p.out->c.passages"]);
    const r = await run(d);
    const out = r.byId.c!.outputs!.answer as Answer;
    expect(out.text).toBe(
      "Aspirin lowered the rate of stroke in older adults in a long trial [0].\n\nCoffee drinking was not associated with heart disease [0]. Unrelated remarks about the weather in spring are here.",
    );
    expect(out.citations).toEqual({ "0": "1#0" });
  });
});

describe("feedback.self and refine.edit as separate nodes", () => {
  it("feedback items feed per-item edits; offline both pass through and say so", async () => {
    const passages = [{ id: "1#0", title: "T", text: "Some text.", metadata: {}, scores: {} }];
    const d = doc(
      { q: ["input.question"], a: ["test.any", { value: toAnswer(DRAFT, passages, { base: 0 }) }], p: ["test.any", { value: passages }], fb: ["feedback.self", { maxItems: 1 }], ed: ["refine.edit"] },
      ["q.question->fb.question", "a.out->fb.answer", "p.out->fb.passages", "q.question->ed.question", "a.out->ed.answer", "fb.feedback->ed.feedback", "p.out->ed.passages"],
      { question: { type: "Question" } },
    );
    delete process.env.CITEFLOW_CHAT_MODEL;
    const offline = await run(d, { inputs: { question: { id: "q", text: "Q?" } } });
    expect(offline.byId.fb!.outputs!.feedback).toEqual([]);
    expect((offline.byId.ed!.outputs!.answer as Answer).text).toBe(DRAFT);
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      json(res, 200, completion(user.includes("You review") ? "1. Feedback: Expand.\nQuestion: none\n2. Feedback: Ignored, over the limit." : LONGER));
    });
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const online = await run(d, { inputs: { question: { id: "q", text: "Q?" } } });
    expect(online.byId.fb!.outputs!.feedback).toEqual([{ text: "Expand." }]);
    expect((online.byId.ed!.outputs!.answer as Answer).text).toBe(LONGER);
  });
});
