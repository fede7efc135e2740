/** What an exported row says of where it came from: types every reader of runs shares (no imports, so no circle). */

/** Where a row came from: enough to find the run, node and evidence again. */
export interface Provenance {
  runId: string;
  graph: string;
  graphHash: string;
  nodeId: string;
  /** The type of that node: what the row teaches (`generate.answer`, `verify.llm`, …). */
  nodeType: string;
  passageIds: string[];
  docIds: string[];
  models: Record<string, string>;
  sources: string[];
  /** Ids of the user corrections applied to this row. */
  corrections?: string[];
  /** For a corrected NLI row: the model's own label. */
  originalLabel?: string;
  /** For an NLI row: the premise sentence's place in its passage, in its document, and its page (PDFs). */
  evidence?: EvidenceSpan;
}

export interface EvidenceSpan {
  passageId: string;
  /** Characters into the passage's text. */
  start: number;
  end: number;
  /** Characters into the document's text, when the passage knows where it sits. */
  docStart?: number;
  docEnd?: number;
  page?: number;
}

/** BEIR qrels: query id → doc id → relevance. */
export type QrelsMap = Map<string, Map<string, number>>;
