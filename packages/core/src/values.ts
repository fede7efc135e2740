import { z } from "zod";

/** The value types that flow along edges. Each is a zod schema; ports name them by string. */

const Metadata = z.record(z.string(), z.unknown());

export const Question = z.object({
  id: z.string().min(1).describe("Stable question id (from the question set, or derived from the text)"),
  text: z.string().min(1).describe("The question as the user asked it"),
  metadata: Metadata.optional(),
});
export type Question = z.infer<typeof Question>;

export const Query = z.object({
  text: z.string().min(1).describe("What is sent to a retriever or search API"),
  questionId: z.string().optional(),
  origin: z.string().optional().describe('Where the query came from: "question", "enriched", "feedback", "second-hop", …'),
});
export type Query = z.infer<typeof Query>;

const PASSAGE_ID = /^(.+)#(\d+)$/;

export const PassageMetadata = z
  .object({
    year: z.number().int().optional(),
    citationCount: z.number().int().nonnegative().optional(),
    url: z.string().optional(),
    source: z.string().optional().describe('Corpus or API the passage came from, e.g. "scifact", "semantic-scholar"'),
    start: z.number().int().nonnegative().optional().describe("Where the passage starts in its document's text (characters)"),
    end: z.number().int().nonnegative().optional().describe("Where it ends in its document's text"),
    page: z.number().int().positive().optional().describe("PDFs: the page the passage starts on"),
    pageStarts: z
      .array(z.tuple([z.number().int().nonnegative(), z.number().int().positive()]))
      .optional()
      .describe("PDFs: [offset in the passage's text, page] where each of its pages starts"),
  })
  .catchall(z.unknown());

export const Passage = z.object({
  id: z.string().regex(PASSAGE_ID, 'passage ids are "docId#chunk", e.g. "4983#0"'),
  title: z.string(),
  text: z.string(),
  metadata: PassageMetadata,
  scores: z.record(z.string(), z.number()).describe("Every score the passage received on its way (bm25, dense, fused, rerank, …)"),
});
export type Passage = z.infer<typeof Passage>;

export function passageId(docId: string | number, chunk: number): string {
  return `${docId}#${chunk}`;
}

/** The page an offset into a passage's text falls on (PDF passages), else undefined. */
export function pageAt(p: Pick<Passage, "metadata">, offset: number): number | undefined {
  const starts = p.metadata.pageStarts;
  if (!starts?.length) return p.metadata.page;
  let page = starts[0]![1];
  for (const [at, n] of starts) if (at <= offset) page = n;
  return page;
}

/** The document a passage belongs to: its id up to the last `#chunk`; an id without one names a document already. */
export function docIdOf(id: string): string {
  return PASSAGE_ID.exec(id)?.[1] ?? id;
}

export function parsePassageId(id: string): { docId: string; chunk: number } {
  const m = PASSAGE_ID.exec(id);
  if (!m) throw new Error(`"${id}" is not a passage id ("docId#chunk")`);
  return { docId: m[1]!, chunk: Number(m[2]) };
}

export const Answer = z.object({
  text: z.string(),
  citations: z.record(z.string(), z.string()).describe("Citation marker as written in the text → passage id"),
  allowed: z.array(z.string()).describe("Passage ids the generator was given and may cite"),
  invalidCitations: z
    .array(z.object({ marker: z.string(), target: z.string() }))
    .default([])
    .describe("Markers that point outside the allowed set (hallucinated citations)"),
});
export type Answer = z.infer<typeof Answer>;

export const Feedback = z.object({
  text: z.string().min(1),
  question: z.string().optional().describe("A retrieval question the feedback asks for, if any"),
});
export type Feedback = z.infer<typeof Feedback>;

export const Claim = z.object({
  id: z.string().min(1),
  text: z.string().min(1),
  passageIds: z.array(z.string()).describe("Passages the claim cites"),
  span: z.tuple([z.number().int(), z.number().int()]).optional().describe("Character range in the answer"),
});
export type Claim = z.infer<typeof Claim>;

export const VERDICT_LABELS = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE", "CANNOT_TELL"] as const;
export const VerdictLabel = z.enum(VERDICT_LABELS);
export type VerdictLabel = z.infer<typeof VerdictLabel>;

export const Verdict = z.object({
  claimId: z.string().min(1),
  about: z.literal("question").optional().describe('"question": the question itself (as a claim) judged against what the answer states, not one of its claims'),
  passageId: z.string().optional(),
  label: VerdictLabel,
  probabilities: z.record(z.string(), z.number().min(0).max(1)).describe("Label → probability from the NLI model"),
  evidence: z
    .object({
      sentence: z.string(),
      passageId: z.string(),
      score: z.number(),
      start: z.number().int().nonnegative().optional().describe("Where the sentence starts in the passage's text"),
      end: z.number().int().nonnegative().optional(),
      page: z.number().int().positive().optional().describe("PDFs: the page the sentence starts on"),
    })
    .optional()
    .describe("The closest evidence sentence"),
  calibration: z
    .object({
      pSupport: z.number().min(0).max(1).describe("Calibrated P(the claim is supported), from the rule below"),
      confidence: z.number().min(0).max(1).describe("Calibrated P(the label given is right): pSupport for SUPPORT, 1 − pSupport for CONTRADICT, the larger of the two for CANNOT_TELL"),
      band: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]).describe("pSupport above the first and below the second: CANNOT_TELL"),
      forced: z.enum(["SUPPORT", "CONTRADICT"]).describe("The verdict if one had to be given (pSupport ≥ 0.5)"),
      rule: z.string().describe("Which calibration: the model and the claims it was chosen on"),
      evidence: z.number().min(0).max(1).optional().describe("NLI: the largest SUPPORT or CONTRADICT probability of any sentence the claim was checked against"),
      evidenceFloor: z.number().min(0).max(1).optional().describe("NLI: below this evidence strength the verdict is NO_EVIDENCE (nothing read speaks to the claim)"),
    })
    .optional()
    .describe("A claim-level verdict's calibration: SUPPORT / CONTRADICT only outside the cannot-tell band (and, for NLI, at or above the evidence floor)"),
});
export type Verdict = z.infer<typeof Verdict>;

export const DatasetRow = z.object({
  kind: z.string().min(1).describe('Row format, e.g. "sft-chat", "nli", "preference"'),
  data: z.record(z.string(), z.unknown()),
  metadata: Metadata.default({}),
});
export type DatasetRow = z.infer<typeof DatasetRow>;

/** Name → schema. List types are written `Name[]` on ports; `Any` accepts every value. */
export const VALUE_TYPES = {
  Question,
  Query,
  Passage,
  Answer,
  Feedback,
  Claim,
  Verdict,
  DatasetRow,
  Text: z.string(),
  Number: z.number(),
  Boolean: z.boolean(),
  Any: z.unknown(),
} as const satisfies Record<string, z.ZodType>;

export type ValueTypeName = keyof typeof VALUE_TYPES;
export const VALUE_TYPE_NAMES = Object.keys(VALUE_TYPES) as ValueTypeName[];
