import { type ClaimSet, emptyResult, jsonLines, mapLabel, badLabel, text, leaveOut, objectRows } from "./types.js";
import { readSetFile, setFile, setFiles } from "./files.js";

/** Check-COVID: news claims against CORD-19 abstracts; the premise is the claim's evidence sentences of its abstract, in order. */
export const checkCovid: ClaimSet = {
  kind: "check-covid",
  title: "Check-COVID",
  origin: "Wang et al., 2023, Check-COVID: Fact-Checking COVID-19 News Claims with Scientific Evidence (Findings of ACL 2023)",
  licence: "MIT (the set's LICENSE file)",
  labels: { SUPPORT: "SUPPORT", REFUTE: "CONTRADICT", NOTENOUGHINFO: "NO_EVIDENCE" },
  notes: [
    "premise: the claim's evidence sentences (`evidence_set`) of its CORD-19 abstract in `corpus.json`, in the abstract's order",
    "splits: train.json → train, dev.json → dev, test_composed.json and test_extracted.json → test",
  ],
  async read(path) {
    const corpusFile = setFile(path, "corpus.json");
    if (!corpusFile) throw new Error(`${path}: Check-COVID needs its folder, with corpus.json beside the claim files`);
    const abstracts = new Map<string, string[]>();
    for (const { row } of jsonLines(readSetFile(corpusFile), corpusFile))
      if (row && typeof row.cord_id === "string" && Array.isArray(row.abstract)) abstracts.set(row.cord_id, row.abstract.map(String));
    if (abstracts.size === 0) throw new Error(`${corpusFile}: no abstract in it (rows of {"cord_id", "title", "abstract": [sentence, …]})`);
    const r = emptyResult();
    const files = setFiles(path, { "train.json": "train", "dev.json": "dev", "test_composed.json": "test", "test_extracted.json": "test" }, "Check-COVID claim");
    for (const { file, split } of files)
      for (const { where, row } of objectRows(r, readSetFile(file), file)) {
        const c = row;
        const claim = text(c.claim);
        if (!claim || typeof c.cord_id !== "string" || !Array.isArray(c.evidence_set)) {
          r.problems.push({ where: where, problem: 'not a Check-COVID claim row ({"id", "claim", "cord_id", "label", "evidence_set"})' });
          continue;
        }
        const label = mapLabel(checkCovid, c.label);
        if (label === undefined) {
          r.problems.push(badLabel(checkCovid, c.label, where));
          continue;
        }
        const abstract = abstracts.get(c.cord_id);
        const idx = [...new Set((c.evidence_set as Array<{ sent_index?: unknown }>).map((e) => e?.sent_index).filter((i): i is number => Number.isInteger(i)))].sort((a, b) => a - b);
        const premise = idx
          .map((i) => abstract?.[i]?.trim() ?? "")
          .filter(Boolean)
          .join(" ");
        if (!abstract || !premise) {
          leaveOut(r, "evidence sentence not in corpus.json");
          continue;
        }
        r.pairs.push({ premise, hypothesis: claim, label: label!, split, id: String(c.id ?? where), originalLabel: String(c.label) });
      }
    return r;
  },
};
