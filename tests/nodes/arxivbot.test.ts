import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Answer, Claim, Passage } from "@citeflow/core";
import { templatePath } from "@citeflow/nodes";
import { completion, json } from "../models/loopback.js";
import { run } from "../helpers.js";
import { templateSuite } from "../scifact.js";

const suite = templateSuite(60);
const shipped = JSON.parse(readFileSync(templatePath("arxivbot"), "utf8"));
/** The template with arXivBot's own check: the language model's (the shipped template asks the reranker). */
const template = structuredClone(shipped);
template.nodes.find((n: { id: string }) => n.id === "enough").params = { judge: "llm" };

describe("arXivBot template", () => {
  it("with an LLM: few-shot query → top 3 → claims → not enough → second hop → merged claims → cited answer", async () => {
    let claimCalls = 0;
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      if (user.startsWith("Write one search query")) return json(res, 200, completion(suite.docs[8]!.title));
      if (user.startsWith("From the passages"))
        return json(res, 200, completion(claimCalls++ === 0 ? "[1] First claim.\n[2] Second claim.\n[3] The method halves the error.\nnoise line\n[9] Out of range." : "[1] Second-hop claim."));
      if (user.startsWith("Decide whether")) return json(res, 200, completion(`The claims miss the mechanism.\nAnswer: ${suite.docs[40]!.title}`));
      json(res, 200, completion("It works [1][2], by a mechanism [4]."));
    });
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const r = await run(template, { inputs: { question: { id: "q", text: "How does it work?" } } });
    expect(r.result.status, JSON.stringify(r.result.nodes.find((n) => n.error)?.error)).toBe("ok");
    const top3 = r.byId.top3!.outputs!.items as Passage[];
    expect(top3[0]!.id.split("#")[0]).toBe(suite.docs[8]!.docId);
    // The prompt's own example line, copied back by the model, is no claim of passage 3.
    expect((r.byId.claims!.outputs!.claims as Claim[]).map((c) => [c.text, c.passageIds])).toEqual([
      ["First claim.", [top3[0]!.id]],
      ["Second claim.", [top3[1]!.id]],
    ]);
    expect(JSON.stringify(r.events)).toContain("1 of 3 claims copied the prompt's instructions, not a passage: dropped");
    const enough = r.byId.enough!.outputs!;
    expect(enough.decision).toBe(`second hop: ${suite.docs[40]!.title}`);
    const passages = enough.passages as Passage[];
    expect(passages.slice(0, 3)).toEqual(top3);
    expect(passages[3]!.id.split("#")[0]).toBe(suite.docs[40]!.docId);
    expect((enough.claims as Claim[]).at(-1)).toEqual({ id: "c3", text: "Second-hop claim.", passageIds: [passages[3]!.id] });
    const answer = r.byId.answer!.outputs!.answer as Answer;
    expect(answer.citations).toEqual({ "1": top3[0]!.id, "2": top3[1]!.id, "4": passages[3]!.id });
    const prompt = server.requests.at(-1)!.body.messages.at(-1).content as string;
    expect(prompt).toContain("- Second-hop claim. [4]");
  });

  it("judge reranker: the reranker's best score for the passages read decides, the model is not asked, and not enough searches the question", async () => {
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      if (user.startsWith("Write one search query")) return json(res, 200, completion(suite.docs[8]!.title));
      json(res, 200, completion(user.startsWith("From the passages") ? "[1] A claim." : "An answer [1]."));
    });
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const question = suite.docs[8]!.title;
    expect(shipped.nodes.find((n: { id: string }) => n.id === "enough").params.judge).toBe("reranker");
    const judged = (minScore: number) => {
      const doc = structuredClone(shipped);
      doc.nodes.find((n: { id: string }) => n.id === "enough").params = { judge: "reranker", reranker: "pair-rerank-scifact", minScore };
      return run(doc, { inputs: { question: { id: "q", text: question } } });
    };
    const low = await judged(-1e9);
    expect(low.result.status, JSON.stringify(low.result.nodes.find((n) => n.error)?.error)).toBe("ok");
    expect(low.byId.enough!.outputs!.decision).toBe("sufficient");
    const check = low.events.find((e) => e.type === "span-end" && e.nodeId === "enough") as { data: { model: string; scores: number[] } };
    expect(check.data.model).toBe("pair-rerank-scifact");
    expect(check.data.scores).toHaveLength(3);
    const best = Math.max(...check.data.scores);
    expect((await judged(best)).byId.enough!.outputs!.decision).toBe("sufficient");
    expect((await judged(best + 1e-6)).byId.enough!.outputs!.decision).toBe(`second hop: ${question}`);
    expect(server.requests.some((r) => String(r.body.messages.at(-1).content).startsWith("Decide whether"))).toBe(false);
  });

  it("an unparseable sufficiency answer is a clear node error", async () => {
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      json(res, 200, completion(user.startsWith("Decide whether") ? "Hmm, hard to say." : user.startsWith("From the passages") ? "[1] A claim." : "query"));
    });
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const r = await run(template, { inputs: { question: { id: "q", text: suite.docs[2]!.title } } });
    expect(r.byId.enough!.error!.message).toMatch(/sufficiency check did not parse: expected a final line "Answer: No\." or "Answer: <query>"/);
  });

  it("offline: extractive claims, the check says it was skipped, the answer lists the claims with citations", async () => {
    process.env.CITEFLOW_STORE = suite.store;
    delete process.env.CITEFLOW_CHAT_MODEL;
    const r = await run(template, { inputs: { question: { id: "q", text: suite.docs[12]!.title } } });
    expect(r.result.status).toBe("ok");
    expect(r.byId.enough!.outputs!.decision).toBe("skipped: no LLM configured");
    const answer = r.byId.answer!.outputs!.answer as Answer;
    expect(Object.keys(answer.citations).length).toBeGreaterThan(0);
    expect(answer.invalidCitations).toEqual([]);
  });
});
