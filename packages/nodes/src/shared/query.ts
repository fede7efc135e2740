import type { PortSpec, Query, Question } from "@citeflow/core";

/** Retrieval nodes take a Query, or a Question whose text is used as the query. */
export const queryInputs: Record<string, PortSpec> = {
  query: { type: "Query", optional: true, description: "What to search for" },
  question: { type: "Question", optional: true, description: "Used as the query when no query is connected" },
};

export function queryText(inputs: Record<string, unknown>, nodeType: string): string {
  const q = (inputs.query as Query | undefined)?.text ?? (inputs.question as Question | undefined)?.text;
  if (q === undefined) throw new Error(`${nodeType}: connect a query or a question`);
  return q;
}
