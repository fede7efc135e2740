import { bm25Scores, defineNode, findCitations, splitSentences, statedContent, type Answer, type Claim, type Passage } from "@citeflow/core";
import { z } from "zod";

interface Sentence {
  text: string;
  start: number;
  end: number;
  cited: string[];
}

/** The answer's sentences with their character spans and the passage ids they cite. */
function sentencesOf(answer: Answer, passages: Pick<Passage, "id">[], base: 0 | 1): Sentence[] {
  const out: Sentence[] = [];
  let from = 0;
  for (const text of splitSentences(answer.text)) {
    const start = answer.text.indexOf(text, from);
    from = start + text.length;
    const cited = [...new Set(findCitations(text, passages, { base }).map((c) => c.passageId ?? `invalid:${c.marker}`))];
    out.push({ text, start, end: from, cited });
  }
  return out;
}

const stripMarkers = (s: string) =>
  s
    .replace(/\s*[[(](?:\s*(?:\d+|(?:PUBMED|PMID|DOI|ARXIV|S2|CORE)\s*:[^\])]+)\s*(?:[,;-–]\s*)?)+[\])]/gi, "")
    .replace(/\s+([.,;:!?])/g, "$1")
    .trim();

export const claimsSplit = defineNode({
  type: "claims.split",
  version: 2,
  title: "Split into claims",
  family: "verify",
  description:
    'Verif.ai\'s claim split: one claim per sentence and cited id; an uncited sentence joins the neighbour whose cited text it resembles more, or stands alone with no passage when it shares no word with either; a claim states what its sentence does, without a reporting frame ("The papers report: X" claims X).',
  inputs: {
    answer: { type: "Answer" },
    passages: { type: "Passage[]", optional: true, description: "The passages the answer was written from (for the neighbour rule); default: those it cites" },
  },
  outputs: { claims: { type: "Claim[]" } },
  params: z.object({
    citationBase: z
      .union([z.literal(0), z.literal(1)])
      .default(1)
      .describe("How the answer numbers its citations"),
  }),
  async run(inputs, params) {
    const answer = inputs.answer;
    const passages = inputs.passages ?? [];
    // Markers resolve against the passages the generator was allowed to cite, in its order.
    const order = answer.allowed.map((id) => ({ id }));
    const sents = sentencesOf(answer, order, params.citationBase);
    const textOf = (ids: string[]) => ids.map((id) => passages.find((p) => p.id === id)?.text ?? "").join(" ");
    // Each uncited sentence joins the cited neighbour (before or after) whose passages share more of
    // its words; one that shares none with either ("So they support the claim.") is a claim of its
    // own, with no passage: nothing it cites can check it.
    const groups = sents.map((s) => ({ ...s, parts: [s] }));
    const cited = groups.filter((g) => g.cited.length > 0);
    const alone: typeof groups = [];
    for (const g of groups) {
      if (g.cited.length > 0 || cited.length === 0) continue;
      const neighbours = [[...cited].reverse().find((c) => c.start < g.start), cited.find((c) => c.start > g.start)].filter((c) => c !== undefined);
      const scores = bm25Scores(
        g.text,
        neighbours.map((c) => textOf(c.cited) || c.text),
      );
      const best = scores.indexOf(Math.max(...scores));
      if (scores[best]! > 0) neighbours[best]!.parts.push(g);
      else alone.push(g);
    }
    const claims: Claim[] = [];
    const emit = (parts: Sentence[], ids: string[]) => {
      const sorted = [...parts].sort((a, b) => a.start - b.start);
      const text = statedContent(stripMarkers(sorted.map((p) => p.text).join(" ")));
      if (!text) return;
      for (const id of ids.length ? ids : [undefined]) claims.push({ id: `c${claims.length + 1}`, text, passageIds: id ? [id] : [], span: [sorted[0]!.start, sorted[sorted.length - 1]!.end] });
    };
    if (cited.length === 0) for (const s of sents) emit([s], []);
    else for (const g of [...cited, ...alone].sort((a, b) => a.start - b.start)) emit(g.parts, g.cited);
    return { claims };
  },
});
