import { describe, expect, it } from "vitest";
import { defineNode, MemoryCache, NodeRegistry, qualityWarnings, type Answer, type Claim, type Verdict } from "@citeflow/core";
import { z } from "zod";
import { doc, eventsOf, run } from "../helpers.js";

const answer = (text: string, citations: Record<string, string> = {}): Answer => ({ text, citations, allowed: ["1#0"], invalidCitations: [] });
const claim = (id: string, text: string): Claim => ({ id, text, passageIds: ["1#0"] });
const verdict = (claimId: string, label: Verdict["label"], sentence: string): Verdict => ({ claimId, passageId: "1#0", label, probabilities: {}, evidence: { sentence, passageId: "1#0", score: 1 } });
const warn = (outputs: Record<string, unknown>, inputs: Record<string, unknown> = {}, spans: Record<string, unknown>[] = []) => qualityWarnings({ inputs, outputs, spans });

describe("quality warnings", () => {
  it("say nothing of a cited answer, distinct claims and sound verdicts", () => {
    expect(warn({ answer: answer("Vitamin D lowers the risk of fractures in older adults [1].", { "[1]": "1#0" }) }, {}, [{ finishReason: "stop" }])).toEqual([]);
    expect(warn({ claims: [claim("c1", "Vitamin D lowers the risk of fractures."), claim("c2", "Calcium alone has no effect on bone density.")] })).toEqual([]);
    const c = claim("c1", "Vitamin D lowers the risk of fractures.");
    expect(warn({ verdicts: [verdict("c1", "SUPPORT", "Vitamin D lowers the risk of fractures.")] }, { claims: [c] })).toEqual([]);
  });

  it("flag an answer without a citation, a call cut at its token limit, and repetition with invented numbers", () => {
    const looping = "Patients had 12% fewer fractures in the trial. Patients had 31% fewer fractures in the trial. Patients had 7% fewer fractures in the trial.";
    expect(warn({ answer: answer(looping) }, {}, [{ model: "m", finishReason: "length" }])).toEqual(["hit its token limit", "no citation", "2 sentences repeated"]);
    expect(warn({ claims: [claim("a", "A dose of 5 mg lowers the risk."), claim("b", "A dose of 50 mg lowers the risk."), claim("c", "A different claim entirely here.")] })).toEqual([
      "a claim repeated",
    ]);
    expect(warn({}, {}, [{ finishReason: "length" }, { finishReason: "length" }])).toEqual(["2 calls hit their token limit"]);
  });

  it("flag a verdict other than SUPPORT for a claim against the sentence it restates", () => {
    const c = claim("c1", "Vitamin D insufficiency increases the risk of fractures.");
    const outputs = { verdicts: [verdict("c1", "CONTRADICT", "Vitamin D insufficiency increases the risk of fractures"), verdict("c1", "NO_EVIDENCE", "Another sentence about bones.")] };
    expect(warn(outputs, { claims: [c] })).toEqual(["1 verdict not SUPPORT against the identical sentence"]);
  });

  it("are derived when a node ends, kept with its cached result, and derived again for an overridden output", async () => {
    const writer = defineNode({
      type: "test.writer",
      version: 1,
      title: "Writer",
      family: "test",
      description: "Writes an answer with no citation, cut at its token limit",
      inputs: {},
      outputs: { answer: { type: "Answer" } },
      params: z.object({}),
      run: async (_i, _p, ctx) => {
        await ctx.span("model", async (s) => s.set("finishReason", "length"));
        return { answer: answer("An answer that cites nothing at all.") };
      },
    });
    const registry = new NodeRegistry([writer]);
    const cache = new MemoryCache();
    const ended = async (o: Parameters<typeof run>[1]) => eventsOf((await run(doc({ w: ["test.writer"] }), o, registry)).events, "node-end")[0]!;
    expect((await ended({ cache })).warnings).toEqual(["hit its token limit", "no citation"]);
    const hit = await ended({ cache });
    expect(hit.cache).toBe("hit");
    expect(hit.warnings).toEqual(["hit its token limit", "no citation"]);
    const overridden = await ended({ cache, overrides: { w: { answer: answer("Fixed by hand [1].", { "[1]": "1#0" }) } } });
    expect(overridden.warnings).toBeUndefined();
  });
});
