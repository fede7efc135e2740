// arXivBot's claims measured against SciFact's rationales (bench/llm.mjs): is each claim found word for word in
// the passage it cites, and is it a sentence SciFact gives as the claim's evidence?
import { parsePassageId } from "@citeflow/core";

const norm = (t) =>
  t
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[.\s]+$/, "")
    .trim();

/** One run's claims: for each, whether its passage holds it word for word and whether it is a gold rationale sentence. */
export function claimsFaithfulness(goldLabels, c, r) {
  const items = r.byId.top3.outputs.items;
  const rationale = (doc) => (goldLabels.claims.get(String(c.id))?.evidence.get(doc) ?? []).flatMap((set) => set.sentences.map((i) => goldLabels.sentences.get(doc)[i]));
  const claims = r.byId.claims.outputs.claims.map((claim) => {
    const p = items.find((x) => x.id === claim.passageIds[0]);
    const doc = p ? parsePassageId(p.id).docId : undefined;
    return { inPassage: p !== undefined && norm(p.text).includes(norm(claim.text)), gold: rationale(doc).some((sentence) => norm(sentence) === norm(claim.text)) };
  });
  // Whether a passage read shows a rationale sentence at all: only then can a claim be one.
  const shown = items.some((p) => rationale(parsePassageId(p.id).docId).some((sentence) => norm(p.text).includes(norm(sentence))));
  return { claims, shown };
}

export const CLAIMS_COLUMNS = [
  "claims from",
  "claims",
  "questions with a claim",
  "found word for word in the passage it cites",
  "a sentence SciFact gives as the evidence",
  "questions with an evidence claim, of those whose passages show one",
];

export function claimsRow(label, perQuestion) {
  const all = perQuestion.flatMap((q) => q.claims);
  const share = (n, d) => `${n}/${d} (${(n / Math.max(1, d)).toFixed(2)})`;
  const shown = perQuestion.filter((q) => q.shown);
  return [
    label,
    String(all.length),
    `${perQuestion.filter((q) => q.claims.length).length}/${perQuestion.length}`,
    share(all.filter((x) => x.inPassage).length, all.length),
    share(all.filter((x) => x.gold).length, all.length),
    share(shown.filter((q) => q.claims.some((x) => x.gold)).length, shown.length),
  ];
}
