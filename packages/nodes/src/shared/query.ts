import type { PortMap, Query, Question } from "@citeflow/core";

/** Retrieval nodes take a Query, or a Question whose text is used as the query. */
export const queryInputs = {
  query: { type: "Query", optional: true, description: "What to search for" },
  question: { type: "Question", optional: true, description: "Used as the query when no query is connected" },
} as const satisfies PortMap;

export function queryText(inputs: { query?: Query | undefined; question?: Question | undefined }, nodeType: string): string {
  const q = inputs.query?.text ?? inputs.question?.text;
  if (q === undefined) throw new Error(`${nodeType}: connect a query or a question`);
  return q;
}
