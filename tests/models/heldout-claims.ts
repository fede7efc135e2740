import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Passage } from "@citeflow/core";

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
