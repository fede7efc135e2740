/** What the editor's question box gives a run: the kernel makes the inputs by the rule the CLI and notebooks share. */
import type { GraphDoc, QuestionsGiven } from "@citeflow/core/browser";

/** Lines as one line: each trimmed, the empty ones dropped, joined with a space. */
export function oneLine(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" ");
}

/**
 * The box's text as the question; for a graph with a `Question[]` input, or with `perLine` (the
 * editor's question set: one run a line), its lines as the question set too. Nothing when the box
 * is empty (a graph without inputs runs on none).
 */
export function questionsOf(doc: GraphDoc, box: string, perLine = false): QuestionsGiven & { question?: string; questions?: string[] } {
  const question = box.trim();
  if (!question) return {};
  const takesSet = perLine || Object.values(doc.inputs).some((i) => i.type === "Question[]");
  const set = box
    .split("\n")
    .map((q) => q.trim())
    .filter(Boolean);
  return { question, ...(takesSet ? { questions: set } : {}) };
}
