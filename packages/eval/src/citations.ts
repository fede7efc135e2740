import { findCitations, splitSentences, type Answer, type Passage } from "@citeflow/core";

/** An entailment judge: does `premise` support `hypothesis`? (e.g. an NLI model's SUPPORT label) */
export type Entails = (premise: string, hypothesis: string) => Promise<boolean>;

export interface CitationScores {
  precision: number;
  recall: number;
  f1: number;
  /** Sentences scored (≥ minLength characters). */
  sentences: number;
  /** Citations scored. */
  citations: number;
}

/**
 * Citation precision and recall as ALCE / ScholarQABench compute them:
 * sentences under `minLength` (50) characters are skipped; a sentence without citations inherits
 * the previous sentence's; at most `maxCitations` (3) per sentence count.
 * Recall: a sentence counts when its cited passages together entail it.
 * Precision: citations of a supported sentence count, unless one is irrelevant — it alone does
 * not entail the sentence and the other citations entail it without it (the over-citation rule);
 * citations of an unsupported sentence do not count.
 */
export async function citationScores(answer: Answer, passages: Passage[], entails: Entails, o: { base?: 0 | 1; minLength?: number; maxCitations?: number } = {}): Promise<CitationScores> {
  const byId = new Map(passages.map((p) => [p.id, p]));
  const textOf = (ids: string[]) =>
    ids
      .flatMap((id) => {
        const p = byId.get(id);
        return p ? [`${p.title}\n${p.text}`] : [];
      })
      .join("\n");
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
    const claim = sentence.replace(/\s*\[[^\]]*\]/g, "").trim();
    const all = cited.length > 0 && (await entails(textOf(cited), claim));
    if (all) supported++;
    citations += cited.length;
    // As in ALCE: citations of a sentence their union does not support are all imprecise.
    if (!all) continue;
    for (const id of cited) {
      if (cited.length === 1 || (await entails(textOf([id]), claim))) {
        relevant++;
        continue;
      }
      const others = cited.filter((x) => x !== id);
      if (!(await entails(textOf(others), claim))) relevant++; // needed by the others: not over-citation
    }
  }
  const precision = citations ? relevant / citations : 0;
  const recall = sentences ? supported / sentences : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, sentences, citations };
}
