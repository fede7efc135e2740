import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileTemplate } from "@citeflow/core";
import { JUDGE_ADAPTER as ID, loadLocalChat } from "@citeflow/models";
import { configFromEnv, createServices, JUDGE_ADAPTER_THRESHOLD, JUDGE_THRESHOLD, judgeThreshold, TRUE_FALSE, trueFalseSchema } from "@citeflow/nodes";
import { claimPassages, claims, defaultAdapter, expectShippedAdapter, root } from "./heldout-claims.js";
import { GEMMA } from "./local.js";

// The judge adapter Citeflow ships (models/citeflow/lm-gemma3-270m-scifact-judge), on the real base,
// scoring OpenScholar's true/false prompt for claims of the fixed held-out split that no model trained on.

const SHIPPED = join(root, "models", ID);

/** verify.llm's prompt for a held-out claim over three passages (claimPassages: its evidence first). */
function prompt(claimId: number) {
  const { passages } = claimPassages(claimId);
  const services = createServices(configFromEnv(process.env));
  const claim = { id: String(claimId), text: claims.get(claimId)!.claim, passageIds: passages.map((p) => p.id) };
  return [{ role: "user" as const, content: compileTemplate(services.prompt("file:openscholar.scifact.v1")).render({ claim, passages }) }];
}

describe("the shipped judge adapter", { timeout: 300_000 }, () => {
  it("is whole (its SHA256SUMS), trained on verify.llm's rows without the held-out claims, and verify.llm's default with its own threshold", () => {
    expectShippedAdapter(SHIPPED, [104, 734, 798], {
      base: "gemma-3-270m-q4_k_m.gguf",
      refused_heldout: 30,
      counts: { rows_by_node: { "verify.llm": 518 } },
    });
    // Nothing named: verify.llm gets this adapter, generate.answer the answers' one, query.enrich the base.
    expect(defaultAdapter("verify.llm")).toBe(ID);
    expect(defaultAdapter("generate.answer")).toBe("citeflow/lm-gemma3-270m-scifact");
    expect(defaultAdapter("query.enrich")).toBeUndefined();
    // Its threshold goes with it, named by id or by its file; the base alone and other adapters keep the base's.
    expect(judgeThreshold(`gemma-3-270m-q4_k_m+${ID}`)).toBe(JUDGE_ADAPTER_THRESHOLD);
    expect(judgeThreshold(`gemma-3-270m-q4_k_m+${join(SHIPPED, "adapter.gguf")}`)).toBe(JUDGE_ADAPTER_THRESHOLD);
    expect(judgeThreshold("gemma-3-270m-q4_k_m")).toBe(JUDGE_THRESHOLD);
    expect(judgeThreshold("gemma-3-270m-q4_k_m+citeflow/lm-gemma3-270m-scifact")).toBe(JUDGE_THRESHOLD);
    expect(judgeThreshold("gemma-3-270m-q4_k_m+/tmp/my-judge/adapter.gguf")).toBe(JUDGE_THRESHOLD);
  });

  it("calls held-out claims the papers contradict false and one they support true, each where the base model says the opposite", async () => {
    const base = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096 });
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096, adapter: { path: join(SHIPPED, "adapter.gguf"), name: ID } });
    const margin = async (chat: typeof base, id: number) => {
      const [t, f] = (await chat.chat(prompt(id), { maxTokens: 8, jsonSchema: trueFalseSchema, choices: TRUE_FALSE })).choiceLogprobs!;
      return t! - f!;
    };
    for (const [id, holds] of [
      [104, false],
      [798, false],
      [734, true],
    ] as const) {
      // Each at its own default threshold (log P(true) − log P(false) above it: true).
      const before = await margin(base, id);
      const after = await margin(tuned, id);
      expect(before > JUDGE_THRESHOLD, `claim ${id}, base: ${before}`).toBe(!holds);
      expect(after > JUDGE_ADAPTER_THRESHOLD, `claim ${id}: ${after}`).toBe(holds);
    }
  });
});
