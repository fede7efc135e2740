import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileTemplate } from "@citeflow/core";
import { CLAIMS_ADAPTER as ID, loadLocalChat } from "@citeflow/models";
import { claimsSchema, configFromEnv, createServices } from "@citeflow/nodes";
import { claimPassages, claims, defaultAdapter, expectShippedAdapter, root } from "./heldout-claims.js";
import { GEMMA } from "./local.js";

// The claims adapter Citeflow ships (models/citeflow/lm-gemma3-270m-scifact-claims), on the real base,
// extracting arXivBot's claims for claims of the fixed held-out split that no model trained on.

const SHIPPED = join(root, "models", ID);

/** arXivBot's claims prompt for a held-out claim over three passages (claimPassages), and the first passage's evidence sentences. */
function prompt(claimId: number) {
  const { passages, rationale } = claimPassages(claimId);
  const services = createServices(configFromEnv(process.env));
  const content = compileTemplate(services.prompt("file:arxivbot.claims.v1")).render({ question: { id: String(claimId), text: claims.get(claimId)!.claim }, passages });
  return { passages, rationale, messages: [{ role: "user" as const, content }] };
}

describe("the shipped claims adapter", { timeout: 300_000 }, () => {
  it("is whole (its SHA256SUMS), trained on claims.extract's rows without the held-out claims, and claims.extract's default", () => {
    expectShippedAdapter(SHIPPED, [39, 40], {
      base: "gemma-3-270m-q4_k_m.gguf",
      refused_heldout: 40,
      counts: { rows_by_node: { "claims.extract": 197 } },
    });
    // Nothing named: claims.extract gets this adapter, generate.answer the answers' one, query.enrich the base.
    expect(defaultAdapter("claims.extract")).toBe(ID);
    expect(defaultAdapter("generate.answer")).toBe("citeflow/lm-gemma3-270m-scifact");
    expect(defaultAdapter("query.enrich")).toBeUndefined();
  });

  it("quotes a rationale sentence of the passage that holds the evidence, where the base model gives no claim", async () => {
    const base = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096 });
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096, adapter: { path: join(SHIPPED, "adapter.gguf"), name: ID } });
    for (const id of [39, 40]) {
      const { passages, rationale, messages } = prompt(id);
      const schema = claimsSchema(passages, true);
      const before = (await base.chat(messages, { maxTokens: 512, jsonSchema: schema })).structured as { claims: unknown[] };
      expect(before.claims, `claim ${id}, base`).toEqual([]);
      const after = ((await tuned.chat(messages, { maxTokens: 512, jsonSchema: schema })).structured as { claims: Array<{ passage: number; claim: string }> }).claims;
      expect(
        after.some((c) => c.passage === 1 && rationale.includes(c.claim)),
        `claim ${id}: ${JSON.stringify(after)}`,
      ).toBe(true);
    }
  });
});
