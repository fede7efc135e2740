import { type ClaimSet, emptyResult, mapLabel, badLabel, text, hashSplit, objectRows } from "./types.js";
import { readSetFile, setFiles } from "./files.js";

/** COVID-Fact: claims with their evidence sentences; REFUTED claims were made by swapping salient words. */
export const covidFact: ClaimSet = {
  kind: "covidfact",
  title: "COVID-Fact",
  origin: "Saakyan et al., 2021, COVID-Fact: Fact Extraction and Verification of Real-World Claims on COVID-19 Pandemic (ACL 2021)",
  licence: "none stated by the source",
  labels: { SUPPORTED: "SUPPORT", REFUTED: "CONTRADICT" },
  notes: ["premise: the claim's evidence sentences joined in their order", "splits: none in the source; a fixed tenth of the claims (by the SHA-256 of the claim) → test, the rest → train"],
  async read(path) {
    const r = emptyResult();
    for (const { file } of setFiles(path, { "COVIDFACT_dataset.jsonl": "" }, "COVID-Fact"))
      for (const { where, row } of objectRows(r, readSetFile(file), file)) {
        const claim = text(row.claim);
        const evidence = Array.isArray(row.evidence) ? row.evidence.map(text).filter((s): s is string => !!s) : [];
        if (!claim || !Array.isArray(row.evidence)) {
          r.problems.push({ where: where, problem: 'not a COVID-Fact row ({"claim", "label", "evidence": [sentence, …]})' });
          continue;
        }
        const label = mapLabel(covidFact, row.label);
        if (!label) {
          r.problems.push(badLabel(covidFact, row.label, where));
          continue;
        }
        if (evidence.length === 0) {
          r.problems.push({ where: where, problem: "no evidence sentence" });
          continue;
        }
        r.pairs.push({ premise: evidence.join(" "), hypothesis: claim, label, split: hashSplit(claim), id: where, originalLabel: String(row.label) });
      }
    return r;
  },
};
