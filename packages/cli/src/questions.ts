import { readFileSync } from "node:fs";
import { questionFromText, type Question } from "@citeflow/core";
import { FailureError } from "./errors.js";

const TEXT_FIELDS = ["text", "question", "claim", "query"];

export { questionFromText };

/**
 * Reads a question set: JSON Lines (one object a line) or a JSON array. The text comes from
 * `field`, or the first of text / question / claim / query; the id from "id" (or the line number).
 * Every bad line is reported, with its number; none is dropped silently.
 */
export function readQuestions(path: string, field?: string): Question[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new FailureError(`cannot read question file ${path}: ${(e as Error).message}`);
  }
  const records: Array<{ line: number; value: unknown }> = [];
  const problems: string[] = [];
  if (text.trimStart().startsWith("[")) {
    try {
      (JSON.parse(text) as unknown[]).forEach((value, i) => records.push({ line: i + 1, value }));
    } catch (e) {
      throw new FailureError(`${path}: not valid JSON: ${(e as Error).message}`);
    }
  } else
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        records.push({ line: i + 1, value: JSON.parse(line) });
      } catch (e) {
        problems.push(`${path}:${i + 1}: not valid JSON (${(e as Error).message})`);
      }
    });
  const questions: Question[] = [];
  const ids = new Map<string, number>();
  for (const { line, value } of records) {
    if (typeof value === "string") {
      questions.push({ ...questionFromText(value), id: `line-${line}` });
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push(`${path}:${line}: expected an object with a question text`);
      continue;
    }
    const obj = value as Record<string, unknown>;
    const key = field ?? TEXT_FIELDS.find((k) => typeof obj[k] === "string");
    const q = key !== undefined ? obj[key] : undefined;
    if (typeof q !== "string" || q.trim() === "") {
      problems.push(`${path}:${line}: no question text (looked for ${field ? `"${field}"` : TEXT_FIELDS.map((k) => `"${k}"`).join(", ")})`);
      continue;
    }
    const id = typeof obj.id === "string" || typeof obj.id === "number" ? String(obj.id) : `line-${line}`;
    if (ids.has(id)) {
      problems.push(`${path}:${line}: duplicate id "${id}" (first on line ${ids.get(id)})`);
      continue;
    }
    ids.set(id, line);
    const { [key!]: _text, id: _id, ...metadata } = obj;
    questions.push({ id, text: q, ...(Object.keys(metadata).length ? { metadata } : {}) });
  }
  if (problems.length) throw new FailureError(`${problems.length} bad line(s) in ${path}:\n  ${problems.join("\n  ")}`);
  if (questions.length === 0) throw new FailureError(`${path} holds no questions`);
  return questions;
}
