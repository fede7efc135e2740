/** A node's language-model calls, read from its trace (the inspector and `citeflow runs show` list them). */
import { describe, expect, it } from "vitest";
import { modelCalls } from "@citeflow/core";

describe("model calls from a node's spans", () => {
  it("finds every call at any depth, with the model that served it and its usage; other spans are skipped", () => {
    const usage = { promptTokens: 812, completionTokens: 40, timeToFirstTokenMs: 310, tokensPerSecond: 48.2 };
    const spans = [
      { name: "model", status: "ok", children: [], data: { model: "gemma-3-270m-q4_k_m", baseURL: "in-process", servedBy: "gemma-3-270m-q4_k_m", usage } },
      {
        name: "feedback 1",
        status: "ok",
        children: [{ name: "feedback", status: "ok", children: [], data: { model: "m", baseURL: "http://127.0.0.1:9/v1", servedBy: "m-2024" } }],
        data: { items: 2 },
      },
      { name: "retrieve", status: "ok", children: [], data: { query: "x" } },
    ];
    expect(modelCalls(spans)).toEqual([
      { span: "model", model: "gemma-3-270m-q4_k_m", where: "in-process", ...usage },
      { span: "feedback", model: "m-2024", where: "http://127.0.0.1:9/v1" },
    ]);
  });
});
