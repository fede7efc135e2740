import { type ClaimSet, emptyResult, mapLabel, badLabel, text, objectRows } from "./types.js";
import { readSetFile } from "./files.js";

/** The labels a user's own pairs may use: Citeflow's, SciFact's and MNLI's names. */
const LABELS: ClaimSet["labels"] = {
  SUPPORT: "SUPPORT",
  CONTRADICT: "CONTRADICT",
  NO_EVIDENCE: "NO_EVIDENCE",
  NOT_ENOUGH_INFO: "NO_EVIDENCE",
  entailment: "SUPPORT",
  neutral: "NO_EVIDENCE",
  contradiction: "CONTRADICT",
};

/** A user's own labelled pairs: JSON Lines of {"premise", "hypothesis", "label", "split"?, "id"?}. */
export const userPairs: ClaimSet = {
  kind: "pairs",
  title: "labelled pairs",
  origin: "the user's own file",
  licence: "as the user states it (--licence)",
  labels: LABELS,
  notes: [
    'rows {"premise", "hypothesis", "label", "split"?, "id"?} (rows written by `citeflow export --format nli` or `datasets import` read as they are); labels in Citeflow\'s, SciFact\'s or MNLI\'s names; a row without `split` is train',
  ],
  async read(path) {
    const r = emptyResult();
    for (const { where, row } of objectRows(r, readSetFile(path), path)) {
      const premise = text(row.premise);
      const hypothesis = text(row.hypothesis);
      if (!premise || !hypothesis) {
        r.problems.push({ where: where, problem: 'not a pair ({"premise", "hypothesis", "label"}, both texts non-empty)' });
        continue;
      }
      const label = mapLabel(userPairs, row.label);
      if (!label) {
        r.problems.push(badLabel(userPairs, row.label, where));
        continue;
      }
      const split = text(row.split) ?? "train";
      if (!/^[a-z][a-z0-9_-]{0,31}$/.test(split)) {
        r.problems.push({ where: where, problem: `split ${JSON.stringify(split)} is not a name of lower-case letters, digits, - and _` });
        continue;
      }
      const meta = row.metadata && typeof row.metadata === "object" ? (row.metadata as Record<string, unknown>) : {};
      const source = text(meta.source);
      r.pairs.push({ premise, hypothesis, label, split, id: text(row.id) ?? text(meta.id) ?? where, originalLabel: String(row.label), ...(source ? { source } : {}) });
    }
    return r;
  },
};
