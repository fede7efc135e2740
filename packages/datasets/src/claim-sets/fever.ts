import { type ClaimSet, emptyResult, mapLabel, badLabel, hashSplit, leaveOut } from "./types.js";
import { readSetFile, setFile } from "./files.js";

/**
 * FEVER's dev set in RTE form: line i of dev.raw.input0 (evidence) and dev.raw.input1 (claim) with dev.label.
 * not_entailment is refuted or not-enough-info, not a clean CONTRADICT: those rows are left out.
 */
export const fever: ClaimSet = {
  kind: "fever-rte",
  title: "FEVER (dev, RTE form)",
  origin: "Thorne et al., 2018, FEVER: a Large-scale Dataset for Fact Extraction and VERification (NAACL 2018)",
  licence: "CC BY-SA 3.0 (FEVER data)",
  labels: { entailment: "SUPPORT", not_entailment: null },
  notes: [
    "premise: line i of `dev.raw.input0`, claim: line i of `dev.raw.input1`, label: line i of `dev.label`",
    "not_entailment rows are left out: they are refuted **or** not-enough-info claims, so neither CONTRADICT nor NO_EVIDENCE",
    "splits: the source's dev set only; a fixed tenth of the claims (by the SHA-256 of the claim) → test, the rest → train",
  ],
  async read(path) {
    const files = ["dev.raw.input0", "dev.raw.input1", "dev.label"].map((n) => setFile(path, n));
    if (files.some((f) => !f)) throw new Error(`${path}: FEVER's RTE form needs the folder holding dev.raw.input0, dev.raw.input1 and dev.label`);
    const [premises, claims, labels] = files.map((f) => readSetFile(f!).replace(/\n$/, "").split("\n"));
    if (premises!.length !== claims!.length || claims!.length !== labels!.length)
      throw new Error(`${path}: dev.raw.input0, dev.raw.input1 and dev.label have ${premises!.length}, ${claims!.length} and ${labels!.length} lines: they must be line for line`);
    const r = emptyResult();
    labels!.forEach((raw, i) => {
      const where = `${files[2]}:${i + 1}`;
      const label = mapLabel(fever, raw.trim());
      const premise = premises![i]!.trim();
      const hypothesis = claims![i]!.trim();
      if (label === undefined) r.problems.push(badLabel(fever, raw, where));
      else if (!premise || !hypothesis) r.problems.push({ where, problem: "empty evidence or claim line" });
      else if (label === null) leaveOut(r, "not_entailment (refuted or not enough info)");
      else r.pairs.push({ premise, hypothesis, label, split: hashSplit(hypothesis), id: where, originalLabel: raw.trim() });
    });
    return r;
  },
};
