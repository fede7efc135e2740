import { describeIssues, splitSentences, type Claim, type Feedback, type Passage } from "@citeflow/core";
import { z } from "zod";

/**
 * JSON schemas for the nodes whose answers have a structure. An in-process model is held to them
 * by a grammar, and every string and list is bounded, so its answer always parses and closes; a
 * server's model answers in text, read by each node's text parser. Each reader checks the JSON
 * against the shape it asked for and turns it into the node's value.
 */

/** What each reader accepts: the fields its schema asks for, of their types. */
const shapes = {
  feedback: z.object({ items: z.array(z.object({ feedback: z.string(), question: z.string() })) }),
  claims: z.object({ claims: z.array(z.object({ passage: z.number().int(), claim: z.string() })) }),
  sufficiency: z.object({ sufficient: z.boolean(), query: z.string() }),
  rating: z.object({ rating: z.number() }),
  pairwise: z.object({ better: z.enum(["A", "B"]) }),
  rubric: z.object({ organisation: z.number(), factuality: z.number() }),
  trueFalse: z.object({ answer: z.enum(["true", "false"]) }),
};

function read<T>(shape: z.ZodType<T>, json: unknown, what: string): T {
  const r = shape.safeParse(json);
  if (!r.success) throw new Error(`the model's ${what} is not of the shape asked for: ${describeIssues(r.error)}`);
  return r.data;
}

const reasoning = { type: "string", maxLength: 300 } as const;
const score = { enum: [1, 2, 3, 4, 5] } as const;

export const feedbackSchema = (maxItems: number) => ({
  type: "object",
  properties: {
    items: {
      type: "array",
      maxItems,
      items: { type: "object", properties: { feedback: { type: "string", maxLength: 400 }, question: { type: "string", maxLength: 200, description: 'a search question, or "none"' } } },
    },
  },
});

export function readFeedback(json: unknown, maxItems: number): Feedback[] {
  const { items } = read(shapes.feedback, json, "feedback");
  return items.slice(0, maxItems).flatMap(({ feedback, question }) => {
    const text = feedback.trim();
    const q = question.trim();
    return text ? [{ text, ...(q && !/^(none|n\/a|-)\.?$/i.test(q) ? { question: q } : {}) }] : [];
  });
}

/** The longest claim the grammar lets a model write (characters). */
export const CLAIM_MAX_CHARS = 300;

/** A node's `quote` param: whether an in-process model's claims are held to its passages' sentences. */
export const quoteParam = z
  .boolean()
  .default(true)
  .describe(
    "In-process model: each claim is one of its passage's sentences, word for word (the grammar offers them); off, it writes each claim in its own words (up to 300 characters). A server's model writes its own words either way.",
  );

/**
 * Claims, each naming its passage (1-based). With `quote`, a claim is one of that passage's
 * sentences as `splitSentences` finds them (of at most CLAIM_MAX_CHARS), so an in-process model can only choose, not reword:
 * Gemma 3 270M's own wording was found in its passage for 0 of 28 claims (bench/README.md).
 */
export function claimsSchema(passages: Passage[], quote: boolean) {
  const numbers = Array.from({ length: Math.max(passages.length, 1) }, (_, i) => i + 1);
  const quoted = passages.flatMap((p, i) => {
    // As long as a claim in the model's own words may be: the answer stays within the node's maxTokens.
    const sentences = [...new Set(splitSentences(p.text).map((x) => x.trim()))].filter((x) => x && x.length <= CLAIM_MAX_CHARS);
    return sentences.length ? [{ type: "object", properties: { passage: { const: i + 1 }, claim: { enum: sentences } } }] : [];
  });
  const items = quote && quoted.length ? { oneOf: quoted } : { type: "object", properties: { passage: { enum: numbers }, claim: { type: "string", maxLength: CLAIM_MAX_CHARS } } };
  return { type: "object", properties: { claims: { type: "array", maxItems: numbers.length * 2, items } } };
}

/** Claims numbered from `startId`, each citing the passage it names (1-based). */
export function readClaims(json: unknown, passages: Passage[], startId = 1): Claim[] {
  const out: Claim[] = [];
  for (const { passage, claim } of read(shapes.claims, json, "claims").claims) {
    const p = passages[passage - 1];
    if (p && claim.trim()) out.push({ id: `c${startId + out.length}`, text: claim.trim(), passageIds: [p.id] });
  }
  return out;
}

export const sufficiencySchema = {
  type: "object",
  properties: { reasoning, sufficient: { type: "boolean" }, query: { type: "string", maxLength: 200, description: "the next search query when not sufficient" } },
} as const;

/** A second hop's query when the check names none (an in-process model's scored check, the reranker's): the question itself. */
export const secondHopQuery = (question: string): string => question.trim().slice(0, 200);

/**
 * The two answers to the sufficiency check with no reasoning written: enough, or not enough and
 * search the question itself. An in-process model scores them; the labelled export's rows teach them.
 */
export function sufficiencyAnswers(question: string): { enough: string; notEnough: string } {
  return {
    enough: JSON.stringify({ reasoning: "", sufficient: true, query: "" }),
    notEnough: JSON.stringify({ reasoning: "", sufficient: false, query: secondHopQuery(question) }),
  };
}

export function readSufficiency(json: unknown): { sufficient: boolean; query?: string } {
  const { sufficient, query } = read(shapes.sufficiency, json, "sufficiency check");
  const q = query.trim();
  // "Not enough" with no query to search has nowhere to go: it counts as enough.
  return sufficient || !q ? { sufficient: true } : { sufficient: false, query: q };
}

export const ratingSchema = { type: "object", properties: { reasoning, rating: score } } as const;
export const readRating = (json: unknown): number => read(shapes.rating, json, "rating").rating;

export const pairwiseSchema = { type: "object", properties: { reasoning, better: { enum: ["A", "B"] } } } as const;
export const readPairwise = (json: unknown): "a" | "b" => (read(shapes.pairwise, json, "comparison").better === "A" ? "a" : "b");

export const rubricSchema = { type: "object", properties: { reasoning, organisation: score, factuality: score } } as const;
export function readRubric(json: unknown): { organisation: number; factuality: number } {
  const { organisation, factuality } = read(shapes.rubric, json, "rubric scores");
  return { organisation, factuality };
}

export const trueFalseSchema = { type: "object", properties: { answer: { enum: ["true", "false"] } } } as const;
export const readTrueFalse = (json: unknown): boolean => read(shapes.trueFalse, json, "verdict").answer === "true";
