/**
 * How a value of unknown origin (a node's output, a stored run's) is told to be one of Citeflow's
 * value types: by its fields. The one test the one-line summaries and the quality warnings share.
 * Pure and browser-safe.
 */
import type { Answer, Claim, Passage, Question, Verdict } from "./values.js";

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const looksLike = {
  passage: (v: unknown): v is Passage => isObject(v) && typeof v.id === "string" && typeof v.text === "string" && isObject(v.scores),
  verdict: (v: unknown): v is Verdict => isObject(v) && typeof v.claimId === "string" && typeof v.label === "string",
  claim: (v: unknown): v is Claim => isObject(v) && typeof v.text === "string" && Array.isArray(v.passageIds),
  answer: (v: unknown): v is Answer => isObject(v) && typeof v.text === "string" && isObject(v.citations),
  question: (v: unknown): v is Question => isObject(v) && typeof v.id === "string" && typeof v.text === "string",
};
