import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Passage } from "@citeflow/core";
import { configFromEnv, createServices } from "@citeflow/nodes";
import { expectSha256Sums } from "../helpers.js";
import { INSTALLED } from "./local.js";

/**
 * The passages the shipped adapters' suites prompt with, for a SciFact training claim (data/): the
 * abstract holding its evidence first, then two others (`withEvidence: false`: three others), and
 * the rationale sentences of that first abstract.
 */
export const root = fileURLToPath(new URL("../..", import.meta.url));
const data = (f: string) =>
  readFileSync(join(root, "data", "scifact", f), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
type Claim = { id: number; claim: string; evidence: Record<string, Array<{ sentences: number[] }>> };
export const claims = new Map(data("claims_train.jsonl").map((c) => [c.id as number, c as Claim]));
const corpus = new Map(data("corpus.jsonl").map((d) => [String(d.doc_id), d as { title: string; abstract: string[] }]));
const docIds = [...corpus.keys()];
const passage = (id: string): Passage => ({ id: `${id}#0`, title: corpus.get(id)!.title, text: corpus.get(id)!.abstract.join(" "), metadata: {}, scores: {} });

export function claimPassages(claimId: number, withEvidence = true): { passages: Passage[]; rationale: string[] } {
  const c = claims.get(claimId)!;
  const gold = Object.keys(c.evidence);
  const others = docIds.filter((d) => !gold.includes(d)).slice((claimId * 7) % 1000, ((claimId * 7) % 1000) + (withEvidence ? 2 : 3));
  const passages = [...(withEvidence ? [gold[0]!] : []), ...others].map(passage);
  const rationale = withEvidence ? c.evidence[gold[0]!]!.flatMap((s) => s.sentences.map((i) => corpus.get(gold[0]!)!.abstract[i]!.trim())) : [];
  return { passages, rationale };
}

/** The adapter the one rule puts on a node of this type when no model is named, with the installed models (undefined: the base alone). */
export function defaultAdapter(task: string): string | undefined {
  const c = createServices({ ...configFromEnv({}), modelsDirs: [INSTALLED] }).chatChoice({ model: "", baseUrl: "" }, task);
  return c.kind === "local" ? c.adapter?.name : c.kind;
}

/** A shipped adapter's folder is whole (its SHA256SUMS), the claims its suite tests on are held out, and its training.json says what it was trained on. */
export function expectShippedAdapter(folder: string, testedOn: number[], training: object): void {
  expectSha256Sums(folder);
  const held = new Set(JSON.parse(readFileSync(join(root, "bench", "scifact-heldout.json"), "utf8")).heldout_ids);
  for (const id of testedOn) expect(held.has(id), `claim ${id} is held out`).toBe(true);
  expect(JSON.parse(readFileSync(join(folder, "training.json"), "utf8"))).toMatchObject(training);
}
