import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NO_ANSWER, QUOTE_OPENING, splitSentences } from "@citeflow/core";
import { loadLocalChat } from "@citeflow/models";
import { answerGrammar, answerMessages, configFromEnv, createServices, generateAnswer, quotable, QUOTES_MAX, refusalOrCite } from "@citeflow/nodes";
import { claimPassages, claims, expectShippedAdapter, root } from "./heldout-claims.js";
import { GEMMA } from "./local.js";

// The language-model adapter Citeflow ships (models/citeflow/lm-gemma3-270m-scifact), on the real
// base, answering Verif.ai's prompt for claims of the fixed held-out split that no model trained on.

const SHIPPED = join(root, "models", "citeflow", "lm-gemma3-270m-scifact");

/** Verif.ai's answer prompt for a held-out claim over three passages (claimPassages). */
function prompt(claimId: number, withEvidence = true) {
  const { passages } = claimPassages(claimId, withEvidence);
  return { passages, messages: answerMessages(createServices(configFromEnv(process.env)), { id: String(claimId), text: claims.get(claimId)!.claim }, passages, generateAnswer.params.parse({})) };
}

describe("the shipped language-model adapter", { timeout: 300_000 }, () => {
  it("is whole (its SHA256SUMS) and was trained without the held-out claims it is tested on", () => {
    expectShippedAdapter(SHIPPED, [12, 39], { base: "gemma-3-270m-q4_k_m.gguf", refused_heldout: 162 });
  });

  it("answers held-out claims by quoting the passage that holds the evidence and citing it, where the base model cites nothing", async () => {
    const base = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096 });
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096, adapter: { path: join(SHIPPED, "adapter.gguf"), name: "citeflow/lm-gemma3-270m-scifact" } });
    for (const id of [12, 39]) {
      const { passages, messages } = prompt(id);
      const p = generateAnswer.params.parse({});
      const before = (await base.chat(messages, { maxTokens: 160, grammar: answerGrammar({ count: 3, base: 1 }) })).text;
      // generate.answer's rule without quoting: below noAnswerAt the refusal is not the answer, which cites and does not take the refusal's way.
      const way = await refusalOrCite(tuned, messages, p.noAnswer);
      expect(way.probability, `claim ${id}`).toBeLessThan(p.noAnswerAt!);
      const after = (await tuned.chat(messages, { maxTokens: 160, grammar: answerGrammar({ count: 3, base: 1, required: p.requireCitation, avoid: way.avoid }) })).text.trim();
      expect(before, `claim ${id}, base`).not.toMatch(/\[\d\]/);
      // What the papers report, citing the first passage (the one with the evidence), and no verdict on the claim.
      const m = /^The papers report: ([^]+\[1\])\.$/.exec(after);
      expect(m, `claim ${id}: ${after}`).not.toBeNull();
      expect(
        after.match(/\[\d+\]/g)!.every((marker) => marker === "[1]"),
        `claim ${id}: ${after}`,
      ).toBe(true);
      expect(after, `claim ${id}`).not.toMatch(/So they (support|contradict)/);
      // The quoted sentence is the first passage's own: its words are that passage's. (Word for word it
      // cannot always be: the citation grammar lets "[" open only a marker, so claim 12's "(hazard ratio
      // [HR], 1.04" came out as "(hazard ratio [1], 0.90": docs/models.md.)
      const words = (t: string) =>
        t
          .replace(/\[\d+\]/g, " ")
          .toLowerCase()
          .match(/[a-z0-9]+/g) ?? [];
      const own = new Set(words(passages[0]!.text));
      const quoted = words(m![1]!);
      expect(quoted.filter((w) => own.has(w)).length / quoted.length, `claim ${id}: ${after}`).toBeGreaterThan(0.8);
      expect(quoted.length).toBeGreaterThan(8);
    }
  });

  it("quoting (generate.answer's default), answers held-out claims with the evidence passage's own sentences word for word, each cited by its marker", async () => {
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096, adapter: { path: join(SHIPPED, "adapter.gguf"), name: "citeflow/lm-gemma3-270m-scifact" } });
    const p = generateAnswer.params.parse({});
    for (const id of [12, 39]) {
      const { passages, messages } = prompt(id);
      const sentences = passages.map((x) => splitSentences(x.text));
      const quote = { sentences, opening: p.quoteOpening };
      expect((await refusalOrCite(tuned, messages, p.noAnswer)).probability, `claim ${id}`).toBeLessThan(p.noAnswerAt!);
      const answer = (await tuned.chat(messages, { maxTokens: p.maxTokens, grammar: answerGrammar({ count: 3, base: 1, required: true, quote }) })).text.trim();
      expect(answer.startsWith(`${QUOTE_OPENING} `), answer).toBe(true);
      // Every statement is one of its passage's sentences, word for word, with that passage's marker.
      const statements = [...answer.slice(QUOTE_OPENING.length).matchAll(/ ?(.+?) \[(\d)\]\./g)];
      expect(statements.map((m) => m[0]).join(""), answer).toBe(answer.slice(QUOTE_OPENING.length));
      for (const [, words, marker] of statements) expect(quotable(sentences[Number(marker) - 1]!), answer).toContain(words);
      expect(statements.length).toBeLessThanOrEqual(QUOTES_MAX);
      // The adapter quotes the passage that holds the evidence. (Whether its quotes are SciFact's rationale sentences is bench/llm.mjs's to measure.)
      expect(
        statements.some(([, , marker]) => marker === "1"),
        `claim ${id}: ${answer}`,
      ).toBe(true);
    }
  });

  it("left to choose as it writes (noAnswerAt null), says the papers do not answer, and stops there, when none of them holds the evidence", async () => {
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096, adapter: { path: join(SHIPPED, "adapter.gguf"), name: "citeflow/lm-gemma3-270m-scifact" } });
    const p = generateAnswer.params.parse({});
    const { messages } = prompt(25, false);
    const answer = await tuned.chat(messages, { maxTokens: 160, grammar: answerGrammar({ count: 3, base: 1, required: p.requireCitation, uncited: p.noAnswer }) });
    expect(answer.text.trim()).toBe(NO_ANSWER);
    // Held to cite with no way to refuse, it still writes the refusal and the grammar puts a marker
    // after it: why noAnswerAt's cited way also keeps the answer off the refusal's words (next test).
    const held = await tuned.chat(messages, { maxTokens: 160, grammar: answerGrammar({ count: 3, base: 1, required: true }) });
    expect(held.text.trim(), held.text).toMatch(/^The papers do not answer the question\.? ?\[[123]\]/);
  });

  it("with noAnswerAt, says the papers do not answer when the model's probability of it is at least that, and otherwise cites without taking the refusal's way", async () => {
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 4096, adapter: { path: join(SHIPPED, "adapter.gguf"), name: "citeflow/lm-gemma3-270m-scifact" } });
    const { messages } = prompt(25, false);
    // The refusal's probability, as generate.answer weighs it against noAnswerAt: at 0.01 the answer would be the refusal, at 1 it cites.
    const way = await refusalOrCite(tuned, messages, NO_ANSWER);
    expect(way.probability).toBeGreaterThan(0.01);
    expect(way.probability).toBeLessThan(1);
    expect((await refusalOrCite(tuned, messages, NO_ANSWER)).probability).toBeCloseTo(way.probability, 6);
    // Citing, the answer parts from the refusal at its least likely token (" do" in "The papers do not answer").
    expect(way.avoid).toBe("The papers d");
    const cited = await tuned.chat(messages, { maxTokens: 160, grammar: answerGrammar({ count: 3, base: 1, required: true, avoid: way.avoid }) });
    expect(cited.text.split("\n")[0]).toMatch(/\[[123]\]/);
    expect(cited.text.trim().startsWith("The papers do")).toBe(false);
  });
});
