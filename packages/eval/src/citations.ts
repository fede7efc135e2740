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

/** Sentences a premise window holds (WINDOW: each run of this many consecutive sentences of a passage). */
export const WINDOW = 3;

/**
 * What the judge reads of a passage: its title over each run of WINDOW consecutive sentences of its
 * text (the whole text when it is shorter). SummaC's zero-shot rule: a cross-encoder NLI model sees
 * a few hundred tokens, so a long passage is judged window by window, and entails a sentence when
 * one of its windows does. Measured with Citeflow's NLI model on the 218 gold rationale sentences
 * of the held-out claims, each quoted against its abstract (bench/encoders.mjs): the abstract read
 * whole entailed 0.110 of them, whole or in windows 0.683; another claim's abstract, 0.
 */
export function premiseWindows(p: Pick<Passage, "title" | "text">): string[] {
  const sentences = splitSentences(p.text);
  const head = p.title ? `${p.title}\n` : "";
  if (sentences.length <= WINDOW) return [`${head}${p.text}`];
  return sentences.slice(0, sentences.length - WINDOW + 1).map((_, i) => `${head}${sentences.slice(i, i + WINDOW).join(" ")}`);
}

/**
 * Citation precision and recall as ALCE / ScholarQABench compute them:
 * sentences under `minLength` (50) characters are skipped; a sentence without citations inherits
 * the previous sentence's; at most `maxCitations` (3) per sentence count.
 * A sentence is judged by what it states (statedContent: "The papers report: X" by X).
 * Recall: a sentence counts when its citations entail it: the cited passages joined (ALCE's
 * premise) or a window of one of them (premiseWindows) does.
 * Precision: citations of a supported sentence count, unless one is irrelevant — it alone does
 * not entail the sentence and the other citations entail it without it (the over-citation rule);
 * citations of an unsupported sentence do not count.
 */
export async function citationScores(answer: Answer, passages: Passage[], entails: Entails, o: { base?: 0 | 1; minLength?: number; maxCitations?: number } = {}): Promise<CitationScores> {
  const byId = new Map(passages.map((p) => [p.id, p]));
  // The cited passages joined (ALCE's premise), then each window of each (a cross-encoder cuts the joined text to its few hundred tokens).
  const windowsOf = (ids: string[]) => {
    const ps = ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    if (ps.length === 0) return [];
    return [ps.map((p) => `${p.title}\n${p.text}`).join("\n"), ...ps.flatMap((p) => premiseWindows(p))];
  };
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
    const all = cited.length > 0 && (await entails(windowsOf(cited), claim));
    if (all) supported++;
    citations += cited.length;
    // As in ALCE: citations of a sentence their union does not support are all imprecise.
    if (!all) continue;
    for (const id of cited) {
      if (cited.length === 1 || (await entails(windowsOf([id]), claim))) {
        relevant++;
        continue;
      }
      const others = cited.filter((x) => x !== id);
      if (!(await entails(windowsOf(others), claim))) relevant++; // needed by the others: not over-citation
    }
  }
  const precision = citations ? relevant / citations : 0;
  const recall = sentences ? supported / sentences : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, sentences, citations };
}
