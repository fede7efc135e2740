import { csvRecords } from "@citeflow/retrieval";
import { type ClaimSet, emptyResult, mapLabel, badLabel } from "./types.js";
import { readSetFile, setFiles } from "./files.js";

/** The records of a CSV text (RFC 4180), with the line each starts on. */
async function records(csv: string) {
  const out: Array<{ line: number; fields: string[]; error?: string }> = [];
  for await (const r of csvRecords(
    (async function* () {
      yield csv;
    })(),
  ))
    out.push(r);
  return out;
}

/** HealthVer: health claims against 1–3 sentences of a CORD-19 abstract (the CSV's `evidence`). */
export const healthVer: ClaimSet = {
  kind: "healthver",
  title: "HealthVer",
  origin: "Sarrouti et al., 2021, Evidence-based Fact-Checking of Health-related Claims (Findings of EMNLP 2021)",
  licence: "none stated by the source",
  labels: { Supports: "SUPPORT", Refutes: "CONTRADICT", Neutral: "NO_EVIDENCE" },
  notes: ["premise: the row's `evidence` passage as written", "splits: healthver_train.csv → train, healthver_dev.csv → dev, healthver_test.csv → test"],
  async read(path) {
    const r = emptyResult();
    for (const { file, split } of setFiles(path, { "healthver_train.csv": "train", "healthver_dev.csv": "dev", "healthver_test.csv": "test" }, "HealthVer CSV")) {
      const [header, ...rows] = await records(readSetFile(file));
      const col = (name: string) => header!.fields.findIndex((f) => f.trim() === name);
      const [id, evidence, claim, label] = ["id", "evidence", "claim", "label"].map(col);
      if ([evidence, claim, label].some((i) => i! < 0)) {
        r.problems.push({
          where: `${file}:1`,
          problem: `not a HealthVer CSV: its header has no ${["evidence", "claim", "label"].filter((n) => col(n) < 0).join(", ")} column (it reads ${header!.fields.slice(0, 6).join(", ")})`,
        });
        continue;
      }
      for (const rec of rows) {
        const where = `${file}:${rec.line}`;
        if (rec.error) {
          r.problems.push({ where, problem: rec.error });
          continue;
        }
        const premise = rec.fields[evidence!]?.trim();
        const hypothesis = rec.fields[claim!]?.trim();
        const raw = rec.fields[label!]?.trim();
        if (!premise || !hypothesis) {
          r.problems.push({ where, problem: "empty evidence or claim" });
          continue;
        }
        const mapped = mapLabel(healthVer, raw);
        if (!mapped) {
          r.problems.push(badLabel(healthVer, raw, where));
          continue;
        }
        r.pairs.push({ premise, hypothesis, label: mapped, split, id: id! >= 0 ? `${split}:${rec.fields[id!]}` : where, originalLabel: raw! });
      }
    }
    return r;
  },
};
