import { type ClaimSet, emptyResult, jsonLines, mapLabel, badLabel, text, hashSplit } from "./types.js";
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
      for (const l of jsonLines(readSetFile(file), file)) {
        if (!l.row) {
          r.problems.push({ where: l.where, problem: l.problem! });
          continue;
        }
        const claim = text(l.row.claim);
        const evidence = Array.isArray(l.row.evidence) ? l.row.evidence.map(text).filter((s): s is string => !!s) : [];
        if (!claim || !Array.isArray(l.row.evidence)) {
          r.problems.push({ where: l.where, problem: 'not a COVID-Fact row ({"claim", "label", "evidence": [sentence, …]})' });
          continue;
        }
        const label = mapLabel(covidFact, l.row.label);
        if (!label) {
          r.problems.push(badLabel(covidFact, l.row.label, l.where));
          continue;
        }
        if (evidence.length === 0) {
          r.problems.push({ where: l.where, problem: "no evidence sentence" });
          continue;
        }
        r.pairs.push({ premise: evidence.join(" "), hypothesis: claim, label, split: hashSplit(claim), id: l.where, originalLabel: String(l.row.label) });
      }
    return r;
  },
};
