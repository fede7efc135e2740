/**
 * One line about a node's outputs, for its card on the canvas, the notebook's run display and the
 * CLI: "40 passages · top fused 0.0328", "answer · 3 citations · 1 hallucinated",
 * "3 SUPPORT · 1 CONTRADICT". Pure and browser-safe; computed once when the node ends.
 */
import { isObject, looksLike } from "./shapes.js";
import { shorten } from "./preview.js";
import type { Passage, Verdict } from "./values.js";

const MAX = 80;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const num = (x: number) => (Number.isInteger(x) ? String(x) : Math.abs(x) >= 100 ? x.toFixed(0) : Number(x.toPrecision(3)).toString());
const cut = shorten;

/** The score a ranked list is ordered by, most refined first. */
const SCORE_ORDER = ["rerank", "fused", "dense", "bm25"];

/** Of these score names, the one a ranked list is ordered by (rerank, else fused, dense, bm25, else the first). */
export function rankingScore(keys: readonly string[]): string | undefined {
  return SCORE_ORDER.find((k) => keys.includes(k)) ?? keys[0];
}

function topScore(p: Passage): string {
  const key = rankingScore(Object.keys(p.scores ?? {}));
  return key === undefined ? "" : ` · top ${key} ${num(p.scores[key]!)}`;
}

function list(items: unknown[]): string {
  const first = items.find(isObject);
  if (!first) return items.length === 0 ? "none" : plural(items.length, "item");
  if (looksLike.passage(first)) return `${plural(items.length, "passage")}${topScore(first)}`;
  if (looksLike.verdict(first)) {
    const counts = new Map<string, number>();
    for (const v of items as Verdict[]) counts.set(v.label, (counts.get(v.label) ?? 0) + 1);
    return [...counts].map(([label, n]) => `${n} ${label}`).join(" · ");
  }
  if (looksLike.claim(first)) return plural(items.length, "claim");
  if (looksLike.question(first)) return plural(items.length, "question");
  return plural(items.length, "item");
}

/** One value: a list, an answer, a question, text, a number. */
export function summarizeValue(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (Array.isArray(value)) return list(value);
  if (typeof value === "string") return `“${cut(value.replace(/\s+/g, " ").trim(), 48)}”`;
  if (typeof value === "number") return num(value);
  if (typeof value === "boolean") return String(value);
  if (isObject(value)) {
    if (looksLike.answer(value)) return `answer · ${plural(Object.keys(value.citations).length, "citation")} · ${value.invalidCitations?.length ?? 0} hallucinated`;
    if (looksLike.question(value)) return `“${cut(value.text, 48)}”`;
    // Metrics and other records of numbers: the first few, named.
    const numbers = Object.entries(value).filter((e): e is [string, number] => typeof e[1] === "number");
    if (numbers.length > 0)
      return numbers
        .slice(0, 4)
        .map(([k, x]) => `${k} ${num(x)}`)
        .join(" · ");
    return plural(Object.keys(value).length, "field");
  }
  return typeof value;
}

/** The outputs of a node in one line: each port's summary, the first port's first. */
export function summarizeOutputs(outputs: Record<string, unknown>): string {
  const ports = Object.keys(outputs);
  if (ports.length === 0) return "";
  const parts = ports.length === 1 ? [summarizeValue(outputs[ports[0]!])] : ports.map((p) => `${p}: ${summarizeValue(outputs[p])}`);
  return cut(parts.join(" · "), MAX);
}
