/** How far an ingest is, in words: one rule for the CLI's and the lab's messages and JupyterLab's status. */

/** What an ingest says of itself (its lock): since when, documents read, and of how many when it knows. */
export interface IndexingState {
  startedAt: string;
  documents?: number;
  total?: number;
}

/**
 * The share done and the minutes left (from the rate since its start), and both in words: "2,083 of 5,183 documents
 * (40 %), about 8 min left"; `unit` names what is counted ("abstracts").
 */
export function indexingProgress(s: IndexingState, now: number, unit = "documents"): { percent?: number; minutesLeft?: number; text: string } {
  const { documents, total } = s;
  if (documents === undefined) return { text: "" };
  const percent = total ? Math.floor((100 * documents) / total) : undefined;
  const seconds = (now - Date.parse(s.startedAt)) / 1000;
  const minutesLeft = total && documents > 0 && documents < total && seconds > 0 ? Math.max(1, Math.round(((total - documents) * seconds) / documents / 60)) : undefined;
  const text =
    (total !== undefined && total > 0 ? `${documents.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} ${unit} (${percent} %)` : `${documents.toLocaleString("en-US")} ${unit} so far`) +
    (minutesLeft !== undefined ? `, about ${minutesLeft} min left` : "");
  return { ...(percent !== undefined ? { percent } : {}), ...(minutesLeft !== undefined ? { minutesLeft } : {}), text };
}
