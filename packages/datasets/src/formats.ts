import type { ChatMessage } from "@citeflow/models";
import type { CallExample } from "./calls.js";
import type { AnswerExample, LoopCallExample, NliExample, Provenance, RelevanceExample } from "./examples.js";

/** Text compared for near-duplicates: lower case, letters and digits only, single spaces. */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

export const FORMATS = ["sft", "sft-completion", "openscholar", "dpo", "dpo-openai", "kto", "nli", "rerank", "rerank-scored"] as const;
export type Format = (typeof FORMATS)[number];

/** One exported row, before splitting: `key` groups rows of one question (they share a split). */
export interface Row {
  key: string;
  /** The text near-duplicate removal compares. */
  dedupText: string;
  label?: string;
  data: Record<string, unknown>;
  provenance: Provenance;
}

/**
 * An NLI row whose premise is its hypothesis (the same words, case and punctuation aside): what a
 * quoting answer's claim against its own passage sentence gives. It teaches nothing, so exports drop it.
 */
export function isTrivialPair(r: Row): boolean {
  const { premise, hypothesis } = r.data;
  return typeof premise === "string" && typeof hypothesis === "string" && normalise(premise) === normalise(hypothesis);
}

/** SciFact's labels as the NLI label ids, and how they map onto MNLI's. */
export const NLI_LABELS = { SUPPORT: 0, NO_EVIDENCE: 1, CONTRADICT: 2 } as const;
export const MNLI_MAPPING = { SUPPORT: "entailment", NO_EVIDENCE: "neutral", CONTRADICT: "contradiction" } as const;

export const FORMAT_DOCS: Record<Format, string> = {
  sft: 'TRL conversational / OpenAI fine-tuning: `{"messages": [system, user, assistant]}`',
  "sft-completion": 'TRL prompt-completion: `{"prompt": [system, user], "completion": [assistant]}`',
  openscholar:
    'OpenScholar\'s three training types as chat rows `{"messages": [...], "type": "answer_generation" | "feedback_generation" | "feedback_incorporation"}`: question and passages → answer (x → y); answer → feedback (y0 → F); previous answer and one feedback item → revised answer (y_{t-1}, f_t → y_t)',
  dpo: 'TRL preference: `{"prompt": [system, user], "chosen": [assistant], "rejected": [assistant]}`',
  "dpo-openai": 'OpenAI preference fine-tuning: `{"input": {"messages": [system, user]}, "preferred_output": [assistant], "non_preferred_output": [assistant]}`',
  kto: 'TRL unpaired preference (KTO): `{"prompt": [system, user], "completion": [assistant], "label": true|false}`',
  nli: '`{"premise", "hypothesis", "label", "label_id"}`',
  rerank: 'reranker triplets `{"query", "positive", "negative"}` (passage title and text); each positive is paired with up to 4 negatives of the same query, in rank order',
  "rerank-scored": 'scored pairs `{"query", "passage", "label", "score"}`: label 1 relevant / 0 not; score the LLM rating (1–5) or null',
};

const assistant = (content: string): ChatMessage[] => [{ role: "assistant", content }];

/**
 * Rows of a format from the collected examples. Preference rows pair the pipeline's final answer
 * (chosen) with the generator's first draft (rejected); runs where they are identical give none.
 */
const passageText = (e: RelevanceExample) => `${e.passage.title}\n${e.passage.text}`;
const NEGATIVES_PER_POSITIVE = 4;

function rerankTriplets(rel: RelevanceExample[]): Row[] {
  const byQuery = new Map<string, RelevanceExample[]>();
  for (const e of rel) byQuery.set(e.query, [...(byQuery.get(e.query) ?? []), e]);
  const rows: Row[] = [];
  for (const [query, list] of byQuery) {
    const negatives = list.filter((e) => !e.relevant).slice(0, NEGATIVES_PER_POSITIVE);
    for (const pos of list.filter((e) => e.relevant))
      for (const neg of negatives)
        rows.push({
          key: query,
          dedupText: `${query}\n${pos.passage.id}\n${neg.passage.id}`,
          label: pos.source,
          data: { query, positive: passageText(pos), negative: passageText(neg) },
          provenance: { ...pos.provenance, passageIds: [pos.passage.id, neg.passage.id] },
        });
  }
  return rows;
}

export function rowsFor(format: Format, answers: AnswerExample[], nli: NliExample[], loop: LoopCallExample[] = [], relevance: RelevanceExample[] = [], calls: CallExample[] = []): Row[] {
  const key = (a: AnswerExample) => a.question.text;
  // The best answer a run has (a user's correction, else the pipeline's final answer) and the
  // one it beats (the uncorrected final answer, else the first draft); no pair when they are equal.
  // A pairwise judgement, when the graph made one, decides between draft and final.
  // A labelled corpus's gold answer (--labels) counts as a correction the user made.
  const best = (a: AnswerExample) => a.corrected ?? a.gold ?? a.judged?.preferred ?? a.final.text;
  const worse = (a: AnswerExample) => (a.corrected !== undefined || a.gold !== undefined ? a.final.text : (a.judged?.rejected ?? a.draft.text));
  const paired = answers.filter((a) => best(a).trim() !== worse(a).trim());
  // A structured node's call teaches what it should have answered when that is known, else what it answered.
  const reply = (c: CallExample) => c.target ?? c.response;
  const callRow = (c: CallExample, data: Record<string, unknown>): Row => ({
    key: c.question,
    dedupText: JSON.stringify(c.messages) + reply(c),
    label: c.provenance.nodeType,
    data,
    provenance: c.provenance,
  });
  switch (format) {
    case "sft":
      return [
        ...answers.map((a) => ({ key: key(a), dedupText: a.question.text + "\n" + best(a), data: { messages: [...a.prompt, ...assistant(best(a))] }, provenance: a.provenance })),
        ...calls.map((c) => callRow(c, { messages: [...c.messages, ...assistant(reply(c))] })),
      ];
    case "sft-completion":
      return [
        ...answers.map((a) => ({ key: key(a), dedupText: a.question.text + "\n" + best(a), data: { prompt: a.prompt, completion: assistant(best(a)) }, provenance: a.provenance })),
        ...calls.map((c) => callRow(c, { prompt: c.messages, completion: assistant(reply(c)) })),
      ];
    case "openscholar":
      return [
        ...answers.map((a) => ({
          key: key(a),
          dedupText: a.question.text + "\n" + best(a),
          label: "answer_generation",
          data: { messages: [...a.prompt, ...assistant(best(a))], type: "answer_generation" },
          provenance: a.provenance,
        })),
        ...loop.map((l) => ({
          key: l.question,
          dedupText: JSON.stringify(l.messages) + l.response,
          label: l.type,
          data: { messages: [...l.messages, ...assistant(l.response)], type: l.type },
          provenance: l.provenance,
        })),
      ];
    case "dpo":
    case "dpo-openai":
      return paired.map((a) => ({
        key: key(a),
        dedupText: a.question.text + "\n" + best(a) + "\n" + worse(a),
        data:
          format === "dpo"
            ? { prompt: a.prompt, chosen: assistant(best(a)), rejected: assistant(worse(a)) }
            : { input: { messages: a.prompt }, preferred_output: assistant(best(a)), non_preferred_output: assistant(worse(a)) },
        provenance: a.provenance,
      }));
    case "kto":
      return paired.flatMap((a) => [
        { key: key(a), dedupText: a.question.text + "\n" + best(a), label: "desirable", data: { prompt: a.prompt, completion: assistant(best(a)), label: true }, provenance: a.provenance },
        { key: key(a), dedupText: a.question.text + "\n" + worse(a), label: "undesirable", data: { prompt: a.prompt, completion: assistant(worse(a)), label: false }, provenance: a.provenance },
      ]);
    case "rerank":
      return rerankTriplets(relevance);
    case "rerank-scored":
      return relevance.map((e) => ({
        key: e.query,
        dedupText: `${e.query}\n${e.passage.id}`,
        label: e.relevant ? "relevant" : "not relevant",
        data: { query: e.query, passage: passageText(e), label: e.relevant ? 1 : 0, score: e.rating ?? null },
        provenance: e.provenance,
      }));
    case "nli":
      return nli.map((x) => ({
        // By the run's question, as every format: a claim of an answer is not a question of its own.
        key: x.question ?? x.hypothesis,
        dedupText: x.premise + "\n" + x.hypothesis,
        label: x.source === "gold" ? `${x.label} (gold)` : x.label,
        data: { premise: x.premise, hypothesis: x.hypothesis, label: x.label, label_id: NLI_LABELS[x.label] },
        provenance: x.originalLabel ? { ...x.provenance, originalLabel: x.originalLabel } : x.provenance,
      }));
  }
}
