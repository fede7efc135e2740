import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { docIdOf, NO_ANSWER, QUOTE_OPENING, quoteStatement } from "@citeflow/core";
import type { NliLabel } from "@citeflow/models";

/**
 * A labelled corpus in SciFact's shape: claims with rationale sentences and their label, and the
 * abstracts split into sentences. Gold NLI rows of a run come from it (`citeflow export --labels`).
 */
export interface GoldLabels {
  /** claim id → its evidence (doc id → rationale sets) and the documents it cites. */
  claims: Map<string, { text: string; evidence: Map<string, Array<{ sentences: number[]; label: "SUPPORT" | "CONTRADICT" }>>; cited: string[] }>;
  /** doc id → its sentences. */
  sentences: Map<string, string[]>;
}

/** A gold NLI pair: the claim, one sentence of an abstract, and the sentence's label. */
export interface GoldPair {
  hypothesis: string;
  premise: string;
  label: NliLabel;
  docId: string;
  sentence: number;
}

/** Sentences of an abstract with no evidence for the claim, taken per document (SciFact's NEI sampling, fixed by hash). */
const NO_EVIDENCE_PER_DOC = 2;
/** Retrieved documents that are not evidence, in rank order, that give a hard negative each. */
const RETRIEVED_NEGATIVES = 5;

const bad = (path: string, line: number, why: string) => new Error(`${path}:${line}: ${why}`);

function jsonl(path: string, each: (obj: Record<string, unknown>, line: number) => void): void {
  const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw bad(path, i + 1, `not JSON (${(e as Error).message})`);
    }
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw bad(path, i + 1, "not a JSON object");
    each(obj as Record<string, unknown>, i + 1);
  });
}

/**
 * Reads SciFact-style claims (`id`, `claim`, `evidence`, `cited_doc_ids`) and a corpus (`doc_id`,
 * `abstract` as a sentence list). Ids are kept as their exact text.
 */
export function readGoldLabels(claimsPath: string, corpusPath: string): GoldLabels {
  const claims: GoldLabels["claims"] = new Map();
  jsonl(claimsPath, (c, line) => {
    if (c.id === undefined || typeof c.claim !== "string") throw bad(claimsPath, line, 'a labelled claim needs "id" and "claim"');
    const evidence = new Map<string, Array<{ sentences: number[]; label: "SUPPORT" | "CONTRADICT" }>>();
    for (const [doc, sets] of Object.entries((c.evidence ?? {}) as Record<string, unknown>)) {
      if (!Array.isArray(sets)) throw bad(claimsPath, line, `evidence for ${doc} is not a list`);
      evidence.set(
        doc,
        sets.map((s: { sentences?: unknown; label?: unknown }) => {
          if (!Array.isArray(s.sentences) || (s.label !== "SUPPORT" && s.label !== "CONTRADICT"))
            throw bad(claimsPath, line, `evidence for ${doc}: needs "sentences" and a SUPPORT or CONTRADICT "label"`);
          return { sentences: s.sentences.map(Number), label: s.label };
        }),
      );
    }
    const cited = Array.isArray(c.cited_doc_ids) ? c.cited_doc_ids.map(String) : [];
    claims.set(String(c.id), { text: c.claim, evidence, cited });
  });
  const sentences: GoldLabels["sentences"] = new Map();
  jsonl(corpusPath, (d, line) => {
    if (d.doc_id === undefined || !Array.isArray(d.abstract)) throw bad(corpusPath, line, 'a labelled corpus document needs "doc_id" and "abstract" (a list of sentences)');
    sentences.set(String(d.doc_id), d.abstract.map(String));
  });
  return { claims, sentences };
}

const rank = (key: string) => createHash("sha256").update(key).digest("hex");

/**
 * The gold NLI pairs for one claim and the documents a run retrieved for it: every rationale
 * sentence with its label; as NO_EVIDENCE, a fixed sample of the other sentences of each evidence
 * document and of each document the claim cites without evidence, and one sentence of each of the
 * first five retrieved documents that are not evidence (hard negatives from Citeflow's own retrieval).
 */
export function goldPairs(gold: GoldLabels, claimId: string, retrievedDocs: string[]): GoldPair[] {
  const claim = gold.claims.get(claimId);
  if (!claim) return [];
  const out: GoldPair[] = [];
  const sample = (docId: string, skip: Set<number>, n = NO_EVIDENCE_PER_DOC) => {
    const all = gold.sentences.get(docId) ?? [];
    const picks = all
      .map((_, i) => i)
      .filter((i) => !skip.has(i) && all[i]!.trim() !== "")
      .sort((a, b) => rank(`${claimId}\0${docId}\0${a}`).localeCompare(rank(`${claimId}\0${docId}\0${b}`)))
      .slice(0, n);
    for (const i of picks) out.push({ hypothesis: claim.text, premise: all[i]!, label: "NO_EVIDENCE", docId, sentence: i });
  };
  for (const [docId, sets] of claim.evidence) {
    const all = gold.sentences.get(docId) ?? [];
    const used = new Set<number>();
    for (const s of sets)
      for (const i of s.sentences)
        if (all[i] !== undefined && !used.has(i)) {
          used.add(i);
          out.push({ hypothesis: claim.text, premise: all[i]!, label: s.label, docId, sentence: i });
        }
    sample(docId, used);
  }
  const seen = new Set(claim.evidence.keys());
  for (const docId of claim.cited) {
    if (seen.has(docId)) continue;
    seen.add(docId);
    sample(docId, new Set());
  }
  for (const docId of retrievedDocs.filter((d) => !seen.has(d)).slice(0, RETRIEVED_NEGATIVES)) sample(docId, new Set(), 1);
  return out;
}

/**
 * The answer a labelled claim's generator should have written from these passages (in prompt
 * order): QUOTE_OPENING, then each rationale sentence a passage holds, quoted with that passage's
 * marker before its full stop (quoteStatement: "X raises Y [2]."), in passage order; NO_ANSWER (core) when no passage
 * holds one. A sentence in a part of the abstract the passage does not show is not citable there,
 * and is left out. Undefined when the claim is not in the labels.
 *
 * Why this shape: a greedy decoder picks one token at a time. Answers that each began with their
 * own first word lost to the one fixed refusal, and so did answers that opened with the verdict:
 * an adapter trained on those gave P(do) 0.42, P(support) 0.32, P(contradict) 0.21 at the verdict
 * whatever the passages said, so the refusal won though most of the mass was on citing. Here the
 * choice to cite is one token. The answer states what the papers report and no verdict on the
 * claim: trained to end with one ("So they support the claim."), Gemma 3 270M wrote "support" for
 * 28 of the 28 held-out answers that had one, 9 of them for claims the papers contradict, a
 * sentence that only looked like a judgement (bench/README.md). Whether the claim holds is the
 * verifiers' to say (verify.nli, verify.llm).
 */
export function goldAnswer(gold: GoldLabels, claimId: string, passages: Array<{ id: string; text: string }>, base: 0 | 1): string | undefined {
  const found = goldRationales(gold, claimId, passages);
  if (!found) return undefined;
  if (!found.length) return NO_ANSWER;
  return `${QUOTE_OPENING} ${found.map((r) => quoteStatement(r.sentence, r.passage + base)).join(" ")}`;
}

/** A rationale sentence of a labelled claim that one of the passages shows. */
export interface GoldRationale {
  /** The passage's place in the list (0-based). */
  passage: number;
  sentence: string;
}

/**
 * The rationale sentences of a labelled claim that the passages show, in passage order and, within
 * a passage, in abstract order; a sentence in a part of the abstract a passage does not show is not
 * there. Empty when no passage shows one; undefined when the claim is not in the labels.
 */
export function goldRationales(gold: GoldLabels, claimId: string, passages: Array<{ id: string; text: string }>): GoldRationale[] | undefined {
  const claim = gold.claims.get(claimId);
  if (!claim) return undefined;
  const out: GoldRationale[] = [];
  passages.forEach((p, i) => {
    const docId = docIdOf(p.id);
    const sets = claim.evidence.get(docId);
    const all = gold.sentences.get(docId) ?? [];
    if (!sets) return;
    const picked = [...new Set(sets.flatMap((s) => s.sentences))].sort((a, b) => a - b);
    for (const k of picked) {
      const s = all[k]?.trim();
      if (s && p.text.includes(s)) out.push({ passage: i, sentence: s });
    }
  });
  return out;
}

/**
 * A labelled claim's truth in SciFact's binary setting (OpenScholar's verification task, as
 * `citeflow eval scifact --binary` scores it): true when its evidence supports it, false when it
 * contradicts it or there is none; undefined for a claim the labels do not have.
 */
export function goldTrue(gold: GoldLabels, claimId: string): boolean | undefined {
  const claim = gold.claims.get(claimId);
  return claim ? sciFactLabel(claim.evidence.values()) === "SUPPORT" : undefined;
}

/** SciFact's label for a claim, from its evidence (one list of rationale sets per document): the first set's label, or NO_EVIDENCE when it has none. */
export function sciFactLabel(evidence: Iterable<Iterable<{ label?: unknown }>>): "SUPPORT" | "CONTRADICT" | "NO_EVIDENCE" {
  for (const sets of evidence) for (const s of sets) if (s.label === "SUPPORT" || s.label === "CONTRADICT") return s.label;
  return "NO_EVIDENCE";
}
