import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ClaimSet, emptyResult, mapLabel, badLabel, text } from "./types.js";
import { readSetFile, setFiles } from "./files.js";

/** A trial's section lines at the given indices (all lines when none is given), trimmed and joined. */
function sectionText(trial: Record<string, unknown>, section: string, indices: unknown): string | undefined {
  const lines = trial[section];
  if (!Array.isArray(lines)) return undefined;
  const picked = Array.isArray(indices) && indices.length ? indices.filter((i): i is number => Number.isInteger(i)).map((i) => lines[i]) : lines;
  return picked
    .map((l) => (typeof l === "string" ? l.trim() : ""))
    .filter(Boolean)
    .join(" ");
}

/** NLI4CT (SemEval-2023 task 7): statements about clinical-trial reports; the premise is the section's evidence lines. */
export const nli4ct: ClaimSet = {
  kind: "nli4ct",
  title: "NLI4CT",
  origin: "Jullien et al., 2023, SemEval-2023 Task 7: Multi-Evidence Natural Language Inference for Clinical Trial Data (SemEval 2023)",
  licence: "none stated by the source",
  labels: { Entailment: "SUPPORT", Contradiction: "CONTRADICT" },
  notes: [
    "premise: the evidence lines (`Primary_evidence_index`) of the statement's section of `CT json/<Primary_id>.json`; for a comparison, `Primary trial: …` then `Secondary trial: …` with the secondary trial's evidence lines",
    "splits: train.json → train, dev.json → dev, Gold_test.json → test (test.json has no labels and is not read)",
    "the set's Complete_dataset.zip must be unzipped first; give the folder that holds train.json and `CT json/`",
  ],
  async read(path) {
    if (/\.zip$/i.test(path)) throw new Error(`${path}: unzip it first (unzip Complete_dataset.zip) and give the folder that holds train.json and "CT json/"`);
    const trials = join(path, "CT json");
    if (!existsSync(trials) || !statSync(trials).isDirectory()) throw new Error(`${path}: no "CT json" folder here: NLI4CT needs its unzipped Complete_dataset folder`);
    const cache = new Map<string, Record<string, unknown> | undefined>();
    const trial = (id: unknown): Record<string, unknown> | undefined => {
      if (typeof id !== "string" || !/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
      if (!cache.has(id)) {
        const f = join(trials, `${id}.json`);
        try {
          cache.set(id, existsSync(f) ? (JSON.parse(readSetFile(f)) as Record<string, unknown>) : undefined);
        } catch {
          cache.set(id, undefined);
        }
      }
      return cache.get(id);
    };
    const r = emptyResult();
    for (const { file, split } of setFiles(path, { "train.json": "train", "dev.json": "dev", "Gold_test.json": "test" }, "NLI4CT")) {
      let all: unknown;
      try {
        all = JSON.parse(readSetFile(file));
      } catch (e) {
        r.problems.push({ where: file, problem: `not valid JSON (${(e as Error).message})` });
        continue;
      }
      if (!all || typeof all !== "object" || Array.isArray(all)) {
        r.problems.push({ where: file, problem: "not an NLI4CT file (an object of id → statement)" });
        continue;
      }
      for (const [id, s] of Object.entries(all as Record<string, Record<string, unknown> | null>)) {
        const where = `${file} "${id}"`;
        const statement = text(s?.Statement);
        const section = text(s?.Section_id);
        if (!s || !statement || !section) {
          r.problems.push({ where, problem: 'not an NLI4CT statement ({"Type", "Section_id", "Primary_id", "Statement", "Label", …})' });
          continue;
        }
        const label = mapLabel(nli4ct, s.Label);
        if (!label) {
          r.problems.push(badLabel(nli4ct, s.Label, where));
          continue;
        }
        const primary = trial(s.Primary_id);
        const first = primary && sectionText(primary, section, s.Primary_evidence_index);
        if (!first) {
          r.problems.push({ where, problem: `trial ${String(s.Primary_id)} or its "${section}" section is not in "CT json"` });
          continue;
        }
        let premise = first;
        if (s.Type === "Comparison") {
          const second = trial(s.Secondary_id);
          const other = second && sectionText(second, section, s.Secondary_evidence_index);
          if (!other) {
            r.problems.push({ where, problem: `secondary trial ${String(s.Secondary_id)} or its "${section}" section is not in "CT json"` });
            continue;
          }
          premise = `Primary trial: ${first} Secondary trial: ${other}`;
        }
        r.pairs.push({ premise, hypothesis: statement, label, split, id, originalLabel: String(s.Label) });
      }
    }
    return r;
  },
};
