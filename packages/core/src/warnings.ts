/**
 * What looks wrong in a node's result, in a few words each: derived once, when the node ends (the
 * executor), from what it received, what it produced and what its model calls said; shown on its
 * card, in its inspector, in notebook displays and in the CLI. Pure and browser-safe.
 *
 * A result can look fine and be useless: a small model that loops writes sixteen near-identical
 * claims with invented numbers and no citation, and "0 hallucinated" reads as reassurance.
 */
import { QUESTION_CAVEAT } from "./claim-verdict.js";
import { looksLike } from "./shapes.js";

export interface WarningSource {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  /** The data of the node's spans (a model call's `finishReason`, …); empty for a result from the cache. */
  spans: ReadonlyArray<Record<string, unknown>>;
}

const { answer: isAnswer, claim: isClaim, verdict: isVerdict } = looksLike;

/** Text compared for sameness: lower case, numbers and punctuation out (a loop varies its invented numbers). */
const gist = (s: string) =>
  s
    .toLowerCase()
    .replace(/[\d\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();

/** Sentences of at least 20 characters that occur more than once, by gist. */
function repeats(texts: string[]): number {
  const seen = new Map<string, number>();
  for (const t of texts) {
    const g = gist(t);
    if (g.length >= 20) seen.set(g, (seen.get(g) ?? 0) + 1);
  }
  return [...seen.values()].reduce((n, k) => n + (k > 1 ? k - 1 : 0), 0);
}

const sentences = (text: string) => text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim());

export function qualityWarnings({ inputs, outputs, spans }: WarningSource): string[] {
  const out: string[] = [];
  const truncated = spans.filter((s) => s.finishReason === "length").length;
  if (truncated) out.push(truncated === 1 ? "hit its token limit" : `${truncated} calls hit their token limit`);
  const values = Object.values(outputs);
  for (const a of values.filter(isAnswer)) {
    if (a.text.trim() && Object.keys(a.citations).length === 0) out.push("no citation");
    const n = repeats(sentences(a.text));
    if (n) out.push(n === 1 ? "a sentence repeated" : `${n} sentences repeated`);
  }
  for (const list of values.filter(Array.isArray)) {
    const claims = list.filter(isClaim);
    if (claims.length !== list.length || !claims.length) continue;
    const n = repeats(claims.map((c) => c.text));
    if (n) out.push(n === 1 ? "a claim repeated" : `${n} claims repeated`);
  }
  // An NLI verdict that a claim is not supported by the very sentence it restates.
  const claimText = new Map<string, string>();
  for (const v of Object.values(inputs)) if (Array.isArray(v)) for (const c of v.flat()) if (isClaim(c) && typeof c.id === "string") claimText.set(c.id, gist(c.text));
  const against = values
    .filter(Array.isArray)
    .flatMap((l) => l.filter(isVerdict))
    .filter((v) => v.label !== "SUPPORT" && v.evidence && claimText.get(v.claimId) === gist(v.evidence.sentence)).length;
  if (against) out.push(`${against} ${against === 1 ? "verdict" : "verdicts"} not SUPPORT against the identical sentence`);
  // The question judged against what the answer states: no verdict either way means the answer may be beside the point.
  const unsure = values
    .filter(Array.isArray)
    .flatMap((l) => l.filter(isVerdict))
    .some((v) => v.about === "question" && (v.label === "CANNOT_TELL" || v.label === "NO_EVIDENCE"));
  if (unsure) out.push(QUESTION_CAVEAT);
  return out;
}
