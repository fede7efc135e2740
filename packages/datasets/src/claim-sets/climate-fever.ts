import { type ClaimSet, emptyResult, mapLabel, badLabel, text, hashSplit, objectRows } from "./types.js";
import { readSetFile, setFiles } from "./files.js";

/** Climate-FEVER: climate claims, five Wikipedia evidence sentences each with its own label; one pair per sentence. */
export const climateFever: ClaimSet = {
  kind: "climate-fever",
  title: "Climate-FEVER",
  origin: "Diggelmann et al., 2020, CLIMATE-FEVER: A Dataset for Verification of Real-World Climate Claims (NeurIPS 2020 Tackling Climate Change with ML workshop)",
  licence: "none stated by the source",
  labels: { SUPPORTS: "SUPPORT", REFUTES: "CONTRADICT", NOT_ENOUGH_INFO: "NO_EVIDENCE" },
  notes: [
    "one pair per evidence sentence, with that sentence's own label (`evidence_label`)",
    "splits: none in the source; a fixed tenth of the claims (by the SHA-256 of `claim_id`, so a claim's pairs stay together) → test, the rest → train",
  ],
  async read(path) {
    const r = emptyResult();
    for (const { file } of setFiles(path, { "climate-fever.jsonl": "" }, "Climate-FEVER"))
      for (const { where, row } of objectRows(r, readSetFile(file), file)) {
        const claim = text(row.claim);
        if (!claim || !Array.isArray(row.evidences)) {
          r.problems.push({ where: where, problem: 'not a Climate-FEVER row ({"claim_id", "claim", "evidences": [{"evidence", "evidence_label"}, …]})' });
          continue;
        }
        const split = hashSplit(String(row.claim_id ?? claim));
        (row.evidences as Array<Record<string, unknown> | null>).forEach((e, i) => {
          const premise = text(e?.evidence);
          const label = mapLabel(climateFever, e?.evidence_label);
          if (!premise) r.problems.push({ where: `${where} evidence ${i + 1}`, problem: "no evidence text" });
          else if (!label) r.problems.push(badLabel(climateFever, e?.evidence_label, `${where} evidence ${i + 1}`));
          else r.pairs.push({ premise, hypothesis: claim, label, split, id: `${String(row.claim_id ?? where)}:${i}`, originalLabel: String(e!.evidence_label) });
        });
      }
    return r;
  },
};
