/**
 * generate.answer owns what an answer must be (answer-grammar.ts); a model only follows the grammar it is given and
 * scores continuations. Here the node runs on a model that records what it was asked, so the rule is seen whole:
 * the refusal at or above noAnswerAt, else a citing answer held off the refusal's way.
 */
import { describe, expect, it } from "vitest";
import { NO_ANSWER, type Answer, type Passage } from "@citeflow/core";
import type { ChatModel, ChatOptions } from "@citeflow/models";
import { answerGrammar, describeRule, refusalParting } from "@citeflow/nodes";
import { doc, envServices, run } from "../helpers.js";

const P = (id: string, text: string): Passage => ({ id, title: "", text, metadata: {}, scores: {} });
const passages = [P("a#0", "Vitamin D did not lower the rate of fractures."), P("b#0", "Calcium was given to all.")];

/** An in-process-like model: the refusal's tokens with the given log-probabilities; its one answer cites [1]. */
function recordingModel(refusal: number[]) {
  const asked: ChatOptions[] = [];
  const texts = ["The", " papers", " do", " not", " answer", " the", " question", "."];
  const model: ChatModel = {
    id: "recording",
    baseURL: "in-process",
    constrains: true,
    async chat(_m, o = {}) {
      asked.push(o);
      return { text: "The papers report: Vitamin D did not lower the rate of fractures [1].", model: "recording", usage: { promptTokens: 10, completionTokens: 12, totalTokens: 22 } };
    },
    async continuations(_m, ways) {
      return { promptTokens: 10, scored: ways.map((w, k) => texts.map((text, i) => ({ text: i === 0 && k === 0 ? ` ${text}` : text, logprob: k === 0 ? refusal[i]! : -30 }))) };
    },
  };
  return { model, asked };
}

async function answer(model: ChatModel, params: Record<string, unknown>) {
  const services = envServices();
  services.chat = async () => model;
  const r = await run(
    doc(
      {
        q: ["test.any", { value: { id: "q", text: "Does vitamin D prevent fractures?" } }],
        p: ["test.any", { value: passages }],
        a: ["generate.answer", { generator: "llm", quote: false, ...params }],
      },
      ["q.out->a.question", "p.out->a.passages"],
    ),
    { services },
  );
  expect(r.byId.a!.status, JSON.stringify(r.byId.a!.error)).toBe("done");
  const spans = r.events.filter((e) => e.type === "span-end").map((e) => (e as { data?: Record<string, unknown> }).data ?? {});
  return { answer: r.byId.a!.outputs!.answer as Answer, refusal: spans.find((d) => d.noAnswerAt !== undefined), call: spans.find((d) => d.grammar !== undefined) };
}

describe("generate.answer's answer rule", () => {
  it("answers the refusal when the model's probability of it is at least noAnswerAt, without generating", async () => {
    const { model, asked } = recordingModel([-0.01, -0.01, -0.05, -0.01, -0.01, -0.01, -0.01, -0.01]);
    const r = await answer(model, { noAnswerAt: 0.8 });
    expect(r.answer.text).toBe(NO_ANSWER);
    expect(asked).toEqual([]);
    expect(r.refusal).toMatchObject({ noAnswerAt: 0.8, response: NO_ANSWER, model: "recording", baseURL: "in-process" });
    expect(r.refusal!.probability as number).toBeGreaterThan(0.8);
  });

  it("below it, cites under a grammar that keeps the answer off the refusal's way, up to its least likely token", async () => {
    const { model, asked } = recordingModel([-0.1, -0.1, -4, -0.1, -0.1, -0.1, -0.1, -0.1]);
    const r = await answer(model, { noAnswerAt: 0.8 });
    expect(Object.values(r.answer.citations)).toEqual(["a#0"]);
    expect(asked).toHaveLength(1);
    const rule = { count: 2, base: 1 as const, required: true, avoid: "The papers d" };
    expect(asked[0]!.grammar).toEqual(answerGrammar(rule));
    expect(r.call!.grammar).toBe(describeRule(rule));
    expect(r.refusal!.response).toBeUndefined();
  });

  it("with noAnswerAt null the model chooses as it writes: the refusal is one way of the grammar, no check is made", async () => {
    const { model, asked } = recordingModel([-0.01, -0.01, -0.05, -0.01, -0.01, -0.01, -0.01, -0.01]);
    const r = await answer(model, { noAnswerAt: null });
    expect(r.refusal).toBeUndefined();
    expect(asked[0]!.grammar).toEqual(answerGrammar({ count: 2, base: 1, required: true, uncited: NO_ANSWER }));
  });

  it("parts from the refusal at its least likely token, at that token's first letter", () => {
    const tokens = (lps: number[]) => ["The", " papers", " do", " not"].map((text, i) => ({ text, logprob: lps[i]! }));
    expect(refusalParting(tokens([-0.1, -0.2, -3, -0.1]))).toBe("The papers d");
    expect(refusalParting(tokens([-5, -0.2, -3, -0.1]))).toBe("T");
    expect(refusalParting([{ text: " The", logprob: -1 }])).toBe("T");
  });
});
