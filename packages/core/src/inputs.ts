import type { GraphDoc } from "./graph.js";
import { questionFromText } from "./hash.js";
import type { Question } from "./values.js";

/** A graph's inputs cannot be made from the questions given; the message says why. */
export class QuestionInputError extends Error {
  override name = "QuestionInputError";
}

export interface QuestionsGiven {
  /** One question: typed in (CLI --question, a notebook's string, the editor's question box). */
  question?: string | Question;
  /** A set of questions (CLI --questions, the editor's question set). */
  questions?: Array<string | Question>;
}

export interface QuestionRun {
  inputs: Record<string, unknown>;
  /** The question's id, when the graph runs once per question. */
  label?: string;
}

const asQuestion = (q: string | Question): Question => (typeof q === "string" ? questionFromText(q) : q);

/**
 * The one rule by which the CLI, notebooks and the editor turn questions into a graph's inputs, so
 * that the same question is the same run (and the same cache keys) from each of them:
 *
 * - typed-in text becomes `{ id: "q-<hash of the text>", text }` (`questionFromText`);
 * - a `Question` input takes the question, or runs the graph once per question of a set;
 * - a `Question[]` input takes the set (or the one question as a set of one);
 * - a `Text` input takes the question's text;
 * - any other input type cannot come from questions and is an error, as is a graph with inputs
 *   and no question given.
 */
export function questionRuns(doc: GraphDoc, given: QuestionsGiven): QuestionRun[] {
  const declared = Object.entries(doc.inputs);
  const one = given.question !== undefined ? asQuestion(given.question) : undefined;
  const set = given.questions?.map(asQuestion);
  if (declared.length === 0) {
    if (one || set) throw new QuestionInputError(`graph "${doc.name}" declares no inputs: it takes no question`);
    return [{ inputs: {} }];
  }
  if (!one && !set) throw new QuestionInputError(`graph "${doc.name}" needs ${declared.map(([n, s]) => `${n} (${s.type})`).join(", ")}: give a question`);
  for (const [name, spec] of declared)
    if (!["Question", "Question[]", "Text"].includes(spec.type)) throw new QuestionInputError(`graph input "${name}" is ${spec.type}; questions can supply Question, Question[] and Text inputs`);
  const list = set ?? [one!];
  const fixed = Object.fromEntries(declared.filter(([, s]) => s.type === "Question[]").map(([n]) => [n, list]));
  const perQuestion = declared.some(([, s]) => s.type === "Question" || s.type === "Text");
  if (!perQuestion) return [{ inputs: fixed }];
  const each = one ? [one] : list;
  return each.map((q) => ({
    inputs: { ...fixed, ...Object.fromEntries(declared.filter(([, s]) => s.type !== "Question[]").map(([n, s]) => [n, s.type === "Text" ? q.text : q])) },
    label: q.id,
  }));
}
