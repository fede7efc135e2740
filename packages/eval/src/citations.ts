import { findCitations, splitSentences, statedContent, type Answer, type Passage } from "@citeflow/core";
import type { NliProbabilities } from "@citeflow/models";

/** An entailment judge: does one of `premises` support `hypothesis`? (e.g. an NLI model's SUPPORT label, on any of them) */
export type Entails = (premises: string[], hypothesis: string) => Promise<boolean>;

export interface CitationScores {
  precision: number;
  recall: number;
  f1: number;
  /** Sentences scored (≥ minLength characters). */
  sentences: number;
  /** Citations scored. */
  citations: number;
}

/** An NLI model as the judge (eval.citations'): one of the premises entails the hypothesis when SUPPORT is its likeliest label. */
export function nliEntails(classify: (pairs: Array<{ premise: string; hypothesis: string }>) => Promise<NliProbabilities[]>): Entails {
  return async (premises, hypothesis) => (await classify(premises.map((premise) => ({ premise, hypothesis })))).some((p) => p.SUPPORT >= p.NO_EVIDENCE && p.SUPPORT >= p.CONTRADICT);
}

/**
 * What the judge reads of a passage besides the whole of it: each of its sentences alone (SummaC's
 * zero-shot rule at sentence granularity; verify.nli reads a passage's sentences the same way). A
 * cross-encoder reads a few hundred tokens at most, and Citeflow's NLI model 128, so a sentence quoted
 * from an abstract is entailed by that sentence, not by the abstract cut short. Chosen on the dev
 * split's 206 gold rationale sentences, each quoted against its abstract with Citeflow's NLI model:
 * entailed by one of its sentences 0.956, by one of its 3-sentence windows under the title (the rule
 * before) 0.709; by another claim's abstract read the same way, 4 of 206 (windows: 5) (bench/README.md).
 */
export function premiseSentences(p: Pick<Passage, "text">): string[] {
  return splitSentences(p.text);
}

/** Everything the judge reads of cited passages: them joined (ALCE's premise), then each sentence of each (a cross-encoder cuts the joined text short); none for none. */
export function judgePremises(ps: Array<Pick<Passage, "title" | "text">>): string[] {
  if (ps.length === 0) return [];
  return [ps.map((p) => `${p.title}\n${p.text}`).join("\n"), ...ps.flatMap((p) => premiseSentences(p))];
}

/**
 * Citation precision and recall as ALCE / ScholarQABench compute them:
 * sentences under `minLength` (50) characters are skipped; a sentence without citations inherits
 * the previous sentence's; at most `maxCitations` (3) per sentence count.
 * A sentence is judged by what it states (statedContent: "The papers report: X" by X).
 * Recall: a sentence counts when its citations entail it: the cited passages joined (ALCE's
 * premise) or a sentence of one of them (premiseSentences) does.
 * Precision: citations of a supported sentence count, unless one is irrelevant — it alone does
 * not entail the sentence and the other citations entail it without it (the over-citation rule);
 * citations of an unsupported sentence do not count.
 */
export async function citationScores(answer: Answer, passages: Passage[], entails: Entails, o: { base?: 0 | 1; minLength?: number; maxCitations?: number } = {}): Promise<CitationScores> {
  const byId = new Map(passages.map((p) => [p.id, p]));
  const premisesOf = (ids: string[]) => judgePremises(ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])));
  // Markers number the passages the generator was given, in its order.
  const numbered = answer.allowed.map((id) => ({ id }));
  let previous: string[] = [];
  let sentences = 0;
  let supported = 0;
  let citations = 0;
  let relevant = 0;
  for (const sentence of splitSentences(answer.text)) {
    let cited = [...new Set(findCitations(sentence, numbered, { base: o.base ?? 1 }).flatMap((c) => (c.passageId ? [c.passageId] : [])))];
    if (cited.length === 0) cited = previous;
    else previous = cited;
    if (sentence.length < (o.minLength ?? 50)) continue;
    cited = cited.slice(0, o.maxCitations ?? 3);
    sentences++;
    // What the sentence states: markers out, and a reporting frame ("The papers report: X" states X).
    const claim = statedContent(sentence.replace(/\s*\[[^\]]*\]/g, "").trim());
    const all = cited.length > 0 && (await entails(premisesOf(cited), claim));
    if (all) supported++;
    citations += cited.length;
    // As in ALCE: citations of a sentence their union does not support are all imprecise.
    if (!all) continue;
    for (const id of cited) {
      if (cited.length === 1 || (await entails(premisesOf([id]), claim))) {
        relevant++;
        continue;
      }
      const others = cited.filter((x) => x !== id);
      if (!(await entails(premisesOf(others), claim))) relevant++; // needed by the others: not over-citation
    }
  }
  const precision = citations ? relevant / citations : 0;
  const recall = sentences ? supported / sentences : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, sentences, citations };
}
