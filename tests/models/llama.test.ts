import { describe, expect, it } from "vitest";
import { NO_ANSWER, QUOTE_OPENING, splitSentences, toAnswer, type Passage } from "@citeflow/core";
import { answerGrammar, citationGrammar, CITE_WITHIN, claimsSchema, quotable, quoteGrammar, QUOTES_MAX } from "@citeflow/nodes";
import { findGguf, GgufNotFoundError, jsonTokenBound, loadLocalChat, plainPrompt, REUSE_BLOCK, type ChatMessage } from "@citeflow/models";
import { firstSciFactDocs } from "../scifact.js";
import { GEMMA, INSTALLED } from "./local.js";

const ask = (passages: Passage[], question: string): ChatMessage[] => [
  { role: "system", content: "You are a careful scientific assistant." },
  {
    role: "user",
    content: `Answer the question from the papers below, citing them like [1].\n\n${passages.map((p, i) => `[${i + 1}] ${p.title}\n${p.text}`).join("\n\n")}\n\nQuestion: ${question}\nAnswer:`,
  },
];

async function passages(n: number): Promise<Passage[]> {
  return (await firstSciFactDocs(n)).map((d) => ({ id: `${d.docId}#0`, docId: d.docId, title: d.title, text: d.text.slice(0, 600), scores: {} }));
}

describe("in-process chat model (llama.cpp, Gemma 3 270M GGUF)", { timeout: 120_000 }, () => {
  it("finds a GGUF by file name in the models folders, and names every place looked when it is missing", () => {
    expect(findGguf("gemma-3-270m-q4_k_m", [INSTALLED])).toBe(GEMMA);
    expect(findGguf("gemma-3-270m-q4_k_m.gguf", ["/nonexistent", INSTALLED])).toBe(GEMMA);
    expect(findGguf("gpt-4o-mini", [INSTALLED])).toBeUndefined(); // a server's model, not a file
    expect(() => findGguf("missing.gguf", ["/a", "/b"], true)).toThrow(GgufNotFoundError);
    expect(() => findGguf("missing.gguf", ["/a", "/b"], true)).toThrow(/\/a\/missing\.gguf[\s\S]*\/b\/missing\.gguf[\s\S]*npm run models/);
  });

  it("answers, streams its text, records usage and is deterministic at temperature 0", async () => {
    const m = await loadLocalChat(GEMMA);
    expect(m.baseURL).toBe("in-process");
    expect(m.templated).toBe(false); // this GGUF has no chat template: it is prompted as plain text
    const ps = await passages(3);
    const chunks: string[] = [];
    const r = await m.chat(ask(ps, "What do these papers report?"), { maxTokens: 40, onText: (c) => chunks.push(c) });
    expect(r.text.trim().length).toBeGreaterThan(0);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe(r.text);
    expect(r.model).toBe("gemma-3-270m-q4_k_m");
    expect(r.usage!.promptTokens).toBeGreaterThan(100);
    expect(r.usage!.completionTokens).toBeGreaterThan(0);
    expect(r.usage!.completionTokens).toBeLessThanOrEqual(40);
    expect(r.usage!.tokensPerSecond).toBeGreaterThan(0);
    expect(r.usage!.timeToFirstTokenMs).toBeGreaterThan(0); // a prompt of over 100 tokens is read before the first token
    const again = await m.chat(ask(ps, "What do these papers report?"), { maxTokens: 40 });
    expect(again.text).toBe(r.text);
  });

  it("reuses the prompt a sequence holds: a call sharing the passages reads only what follows them, and answers byte for byte as a fresh model", async () => {
    const m = await loadLocalChat(GEMMA, { sequences: 2, contextSize: 2048 });
    const fresh = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 2560 });
    const ps = await passages(4);
    const first = await m.chat(ask(ps, "What do these papers report about cells?"), { maxTokens: 24 });
    const second = await m.chat(ask(ps, "Which of these papers studies mice?"), { maxTokens: 24 });
    const alone = await fresh.chat(ask(ps, "Which of these papers studies mice?"), { maxTokens: 24 });
    // Everything before the question is shared: the passages are not read again, up to the last
    // whole block of REUSE_BLOCK tokens (the blocks make reuse exact).
    expect(first.usage!.cachedPromptTokens).toBe(0);
    expect(second.usage!.cachedPromptTokens! % REUSE_BLOCK).toBe(0);
    expect(second.usage!.cachedPromptTokens).toBeGreaterThan(second.usage!.promptTokens - REUSE_BLOCK - 20);
    expect(second.usage!.cachedPromptTokens).toBeLessThan(second.usage!.promptTokens);
    expect(alone.usage!.cachedPromptTokens).toBe(0);
    expect(second.usage!.promptTokens).toBe(alone.usage!.promptTokens);
    expect(second.text).toBe(alone.text);
  });

  it("a JSON schema makes the answer parse, always", async () => {
    const m = await loadLocalChat(GEMMA);
    const schema = { type: "object", properties: { rating: { enum: [1, 2, 3, 4, 5] }, reason: { type: "string", maxLength: 80 } } };
    for (const q of ["Rate this paper's relevance to bone health from 1 to 5.", "Is this paper about cancer? Rate 1 to 5."]) {
      const r = await m.chat([{ role: "user", content: `${(await passages(1))[0]!.text}\n\n${q}` }], { maxTokens: 80, jsonSchema: schema });
      expect(r.structured).toEqual(JSON.parse(r.text));
      expect([1, 2, 3, 4, 5]).toContain((r.structured as { rating: number }).rating);
    }
  });

  it("quoted claims (claims.extract's quote): each claim the grammar lets through is a sentence of the passage it names", async () => {
    const m = await loadLocalChat(GEMMA);
    const given = await passages(3);
    const quoted = claimsSchema(given, true);
    // At least one claim, so that the grammar is seen to choose.
    const schema = { ...quoted, properties: { claims: { ...quoted.properties.claims, minItems: 1 } } };
    const r = await m.chat([{ role: "user", content: `${given.map((p, i) => `[${i + 1}] ${p.text}`).join("\n\n")}\n\nThe claims of these passages, as JSON:` }], {
      maxTokens: 512,
      jsonSchema: schema,
    });
    const claims = (r.structured as { claims: Array<{ passage: number; claim: string }> }).claims;
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) expect(splitSentences(given[c.passage - 1]!.text).map((x) => x.trim())).toContain(c.claim);
  });

  it("constrained citations: no marker outside the given passages, over a question set", async () => {
    const m = await loadLocalChat(GEMMA);
    const ps = await passages(12);
    for (let i = 0; i < 4; i++) {
      const given = ps.slice(i * 3, i * 3 + 3);
      const r = await m.chat(ask(given, `Is it true that ${given[0]!.title.toLowerCase()}? Cite [1], [2] or [3].`), { maxTokens: 60, grammar: answerGrammar({ count: 3, base: 1 }) });
      const answer = toAnswer(r.text, given);
      expect(answer.invalidCitations).toEqual([]);
      expect(r.text).not.toMatch(/\[(?![123]\])[^\]]*\]/);
    }
    expect(citationGrammar(3, 0)).toBe('root ::= ([^\\[] | "[" ("0" | "1" | "2") "]")*');
  });

  it("required citations: every answer cites a given passage on its first line, where the free grammar lets the base model cite none", async () => {
    const m = await loadLocalChat(GEMMA);
    const ps = await passages(12);
    let citedFree = 0;
    for (let i = 0; i < 4; i++) {
      const given = ps.slice(i * 3, i * 3 + 3);
      const question = ask(given, `What does ${given[1]!.title.toLowerCase()} report?`);
      const free = await m.chat(question, { maxTokens: 60, grammar: answerGrammar({ count: 3, base: 1 }) });
      citedFree += Object.keys(toAnswer(free.text, given).citations).length > 0 ? 1 : 0;
      const r = await m.chat(question, { maxTokens: 60, grammar: answerGrammar({ count: 3, base: 1, required: true }) });
      expect(r.text.split("\n")[0]!.slice(0, CITE_WITHIN + 3), r.text).toMatch(/\[[123]\]/);
      expect(toAnswer(r.text, given).invalidCitations).toEqual([]);
    }
    expect(citedFree).toBeLessThan(4);
    expect(citationGrammar(2, 1, true)).toBe('root ::= [^\\[\\n]{0,300} "[" ("1" | "2") "]" ([^\\[] | "[" ("1" | "2") "]")*');
    // The answer that cites nothing, when the prompt allows one, is an alternative (llama-shipped.test.ts runs it).
    expect(citationGrammar(2, 1, true, NO_ANSWER)).toBe(`root ::= " "? "${NO_ANSWER}" "\\n"* | [^\\[\\n]{0,300} "[" ("1" | "2") "]" ([^\\[] | "[" ("1" | "2") "]")*`);
    // Cites and does not begin with "No." (generate.answer's noAnswerAt, below its threshold): it parts from it at some character.
    expect(citationGrammar(2, 1, true, undefined, "No.")).toBe(
      [
        'root ::= " "? ((marker tail | [^N\\[\\n ] cited) | "N" (marker tail | [^o\\[\\n] cited) | "No" (marker tail | [^\\u002e\\[\\n] cited))',
        'cited ::= [^\\[\\n]{0,300} "[" ("1" | "2") "]" ([^\\[] | "[" ("1" | "2") "]")*',
        'marker ::= "[" ("1" | "2") "]"',
        'tail ::= ([^\\[] | "[" ("1" | "2") "]")*',
      ].join("\n"),
    );
  });

  it("quoting answers (generate.answer's quote): the base model's every statement is a sentence of a passage word for word, with that passage's marker", async () => {
    const m = await loadLocalChat(GEMMA);
    const ps = await passages(6);
    for (let i = 0; i < 2; i++) {
      const given = ps.slice(i * 3, i * 3 + 3);
      const sentences = given.map((p) => splitSentences(p.text));
      const r = await m.chat(ask(given, `What does ${given[1]!.title.toLowerCase()} report?`), {
        maxTokens: 60,
        grammar: answerGrammar({ count: 3, base: 1, quote: { sentences, opening: QUOTE_OPENING } }),
      });
      const body = r.text.trim().slice(QUOTE_OPENING.length);
      expect(r.text.trim().startsWith(QUOTE_OPENING), r.text).toBe(true);
      const statements = [...body.matchAll(/ (.+?) \[(\d)\]\./g)];
      expect(statements.map((x) => x[0]).join(""), r.text).toBe(body);
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.length).toBeLessThanOrEqual(QUOTES_MAX);
      // A passage's text is cut mid-sentence here (600 characters): its last, cut sentence is quotable too, as the passage shows it.
      for (const [, words, marker] of statements) expect(quotable(sentences[Number(marker) - 1]!)).toContain(words);
    }
    // What a passage offers: each sentence once, without its stop, none that holds a marker of its own; a line break is a space.
    expect(quotable(["A rose.", "A rose.", "B fell [2].", "C\nwent up!", " "])).toEqual(["A rose", "C went up"]);
    expect(quoteGrammar([["A rose."], [], ['He said "no".']], 1, "So:", NO_ANSWER)).toBe(
      [`root ::= " "? ("${NO_ANSWER}" "\\n"* | "So:" " " stmt (" " stmt){0,${QUOTES_MAX - 1}} "\\n"*)`, "stmt ::= q0 | q2", 'q0 ::= ("A rose") " [1]."', 'q2 ::= ("He said \\"no\\"") " [3]."'].join(
        "\n",
      ),
    );
    expect(() => quoteGrammar([[], ["[1]."]], 1, "")).toThrow(/none of the passages has one/);
  });

  it("aborts mid-generation through the signal, and the next call on the freed sequence works", async () => {
    const m = await loadLocalChat(GEMMA);
    const ps = await passages(2);
    const ac = new AbortController();
    let seen = 0;
    const aborted = m.chat(ask(ps, "Summarise both papers at length."), {
      maxTokens: 400,
      signal: ac.signal,
      onText: () => {
        if (++seen === 3) ac.abort(new DOMException("stop", "AbortError"));
      },
    });
    await expect(aborted).rejects.toThrow();
    expect(seen).toBeLessThan(20);
    const r = await m.chat(ask(ps, "What is the first paper about?"), { maxTokens: 20 });
    expect(r.text.length).toBeGreaterThan(0);
  });

  it("answers several questions at once, each on its own sequence", async () => {
    const m = await loadLocalChat(GEMMA, { sequences: 2 });
    const ps = await passages(4);
    // When each call generated, in the order of every call's streamed pieces together (no clock): its
    // first and last piece. The answers are JSON, so each call writes tokens: free text may end at
    // once, where the batch's numerics tip the base model to a blank line first.
    const schema = { type: "object", properties: { finding: { type: "string", maxLength: 40 } } };
    let pieces = 0;
    const spans = await Promise.all(
      ps.map(async (p) => {
        const at: number[] = [];
        const r = await m.chat(ask([p], `What does "${p.title}" find? Reply with JSON.`), { maxTokens: 24, jsonSchema: schema, onText: () => at.push(pieces++) });
        expect(r.usage!.completionTokens).toBeGreaterThan(0);
        return [at[0]!, at.at(-1)!] as const;
      }),
    );
    const overlapping = spans.filter(([s, e], i) => spans.some(([s2, e2], j) => j !== i && s < e2 && s2 < e));
    expect(overlapping.length).toBeGreaterThanOrEqual(2);
  });

  it("bounds a JSON answer's tokens from its schema, so it closes", () => {
    expect(jsonTokenBound({ type: "object", properties: { a: { type: "string", maxLength: 10 }, b: { enum: [1, 2] } } })).toBe(4 + (1 + 8 + 14) + (1 + 8 + 3));
    expect(jsonTokenBound({ type: "array", items: { type: "string", maxLength: 5 } })).toBe(Infinity);
    expect(jsonTokenBound({ type: "array", maxItems: 2, items: { type: "boolean" } })).toBe(4 + 2 * 10);
  });

  it("scores given answers by their probability where they part, as llama.cpp gives it, and answers the likeliest", async () => {
    const m = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 1024 });
    const prompt: ChatMessage[] = [{ role: "user", content: "Paris is the capital of which country? Reply with JSON.\nAnswer:" }];
    const choices = ['{"answer":"France"}', '{"answer":"Brazil"}'];
    const r = await m.chat(prompt, { choices, jsonSchema: { type: "object", properties: { answer: { type: "string" } } } });
    expect(r.choiceLogprobs).toHaveLength(2);
    expect(r.text).toBe(choices[0]); // France is the likelier
    expect(r.structured).toEqual({ answer: "France" });
    expect(r.choiceLogprobs![0]).toBeGreaterThan(r.choiceLogprobs![1]!);
    // Held to the two answers, as a grammar holds them: only where they part counts, with the
    // model's probabilities of the two tokens there (from node-llama-cpp directly) renormalised.
    expect(Math.exp(r.choiceLogprobs![0]!) + Math.exp(r.choiceLogprobs![1]!)).toBeCloseTo(1, 12);
    const { getLlama } = await import("node-llama-cpp");
    const llama = await getLlama({ build: "never", gpu: false });
    const model = await llama.loadModel({ modelPath: GEMMA });
    const context = await model.createContext({ contextSize: 1024, batchSize: REUSE_BLOCK, flashAttention: true, swaFullCache: true });
    try {
      const [a, b] = choices.map((c) => model.tokenize(c, false, "trimLeadingSpace"));
      const parting = a!.findIndex((t, j) => t !== b![j]);
      expect(parting).toBeGreaterThan(0); // {"answer":" is shared
      const tokens = [model.tokens.bos!, ...model.tokenize(plainPrompt(prompt), false, "trimLeadingSpace"), ...a!.slice(0, parting)];
      for await (const out of context.getSequence().evaluateWithMetadata(tokens, { probabilities: true })) {
        const [pa, pb] = [out.probabilities.get(a![parting]!)!, out.probabilities.get(b![parting]!)!];
        // Within 0.05 nats: llama.cpp's CPU arithmetic differs in the last bits with the shape of a
        // batch (here the prompt and the shared start are read in one go). A wrong token or place
        // would be off by nats.
        expect(Math.abs(r.choiceLogprobs![0]! - Math.log(pa / (pa + pb)))).toBeLessThan(0.05);
        expect(Math.abs(r.choiceLogprobs![1]! - Math.log(pb / (pa + pb)))).toBeLessThan(0.05);
        break;
      }
    } finally {
      await context.dispose();
      await model.dispose();
    }
    // Scored again on a sequence that holds the prompt: the same numbers, the prompt not read again.
    const again = await m.chat(prompt, { choices });
    expect(again.choiceLogprobs).toEqual(r.choiceLogprobs);
    expect(again.usage!.cachedPromptTokens).toBe(Math.floor((again.usage!.promptTokens - 1) / REUSE_BLOCK) * REUSE_BLOCK);
    await expect(m.chat(prompt, { choices: [] })).rejects.toThrow(/no choices to score/);
    await expect(m.chat(prompt, { choices: ["a", ""] })).rejects.toThrow(/a choice to score is empty/);
    await expect(m.chat(prompt, { choices: ["yes", "yes, surely"] })).rejects.toThrow(/choice 1 is the start of choice 2/);
  });

  it("a prompt longer than the context is an error that says so", async () => {
    const m = await loadLocalChat(GEMMA, { contextSize: 256, sequences: 1 });
    await expect(m.chat([{ role: "user", content: "word ".repeat(600) }], { maxTokens: 16 })).rejects.toThrow(/does not fit the context of 256 tokens/);
  });
});
