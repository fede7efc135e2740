import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLAIM_SETS, importClaimSet } from "@citeflow/datasets";
import { readJsonl, tempDir } from "../helpers.js";

// A few rows of each set in its real format, written here (not copies of the sets).
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

function checkCovid(extra: unknown[] = []) {
  const dir = tempDir("citeflow-checkcovid-");
  writeFileSync(join(dir, "corpus.json"), jsonl([{ cord_id: "a1", title: "Saliva test", abstract: ["Rapid tests are needed.", "The assay detects the virus in 30 min.", "It is cheap."] }]));
  const claim = (id: string, claim: string, label: string, idx: number[]) => ({ id, claim, cord_id: "a1", label, evidence_set: idx.map((i) => ({ sent_index: i, type: "PRIMARY" })), is_auth: false });
  writeFileSync(
    join(dir, "train.json"),
    jsonl([
      claim("t1", "The assay takes thirty minutes.", "SUPPORT", [1]),
      claim("t2", "The assay takes a few seconds.", "REFUTE", [1]),
      claim("t3", "The test costs a dollar.", "NOTENOUGHINFO", [2, 0]),
      ...extra,
    ]),
  );
  writeFileSync(join(dir, "test_composed.json"), jsonl([claim("s1", "The assay takes an hour.", "REFUTE", [1])]));
  return dir;
}

describe("citeflow datasets import: each set's real format → NLI rows with a card", () => {
  it("Check-COVID: the evidence sentences as premise in the abstract's order; REFUTE → CONTRADICT; its test split kept apart; the card names origin and licence", async () => {
    const dir = checkCovid();
    const out = join(tempDir(), "cc");
    const r = await importClaimSet({ kind: "check-covid", path: dir, out });
    expect(r.files).toEqual({ "test.jsonl": 1, "train.jsonl": 3 });
    const train = readJsonl(join(out, "train.jsonl"));
    expect(train.map((x) => [x.label, x.label_id, x.premise])).toEqual([
      ["SUPPORT", 0, "The assay detects the virus in 30 min."],
      ["CONTRADICT", 2, "The assay detects the virus in 30 min."],
      ["NO_EVIDENCE", 1, "Rapid tests are needed. It is cheap."],
    ]);
    expect(train[1]!.metadata).toEqual({ source: "check-covid", id: "t2", original_label: "REFUTE" });
    expect(readJsonl(join(out, "test.jsonl"))[0]!.hypothesis).toBe("The assay takes an hour.");
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain("| licence | MIT (the set's LICENSE file) |");
    expect(card).toContain("Wang et al., 2023");
    expect(card).toContain("| train.jsonl | 1 | 1 | 1 | 3 |");
    expect(JSON.parse(readFileSync(join(out, "import.json"), "utf8"))).toMatchObject({ source: "Check-COVID", counts: { test: { CONTRADICT: 1 } } });
  });

  it("a label outside the set's mapping is named with its file and line and left out; the good rows still go through", async () => {
    const dir = checkCovid([{ id: "t4", claim: "x", cord_id: "a1", label: "MAYBE", evidence_set: [] }]);
    const out = join(tempDir(), "cc");
    const r = await importClaimSet({ kind: "check-covid", path: dir, out });
    expect(r.files["train.jsonl"]).toBe(3);
    expect(r.problems).toEqual([{ where: `${join(dir, "train.json")}:4`, problem: 'label "MAYBE" is not one of SUPPORT, REFUTE, NOTENOUGHINFO' }]);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain(`${join(dir, "train.json")}:4: label "MAYBE"`);
  });

  it("HealthVer: quoted evidence with commas and line breaks; Supports / Refutes / Neutral; dev and test kept apart", async () => {
    const dir = tempDir("citeflow-healthver-");
    writeFileSync(
      join(dir, "healthver_dev.csv"),
      'id,evidence,claim,label,topic_ip,question\n1,"Vitamin D, in trials,\nlowered risk.",Vitamin D lowers risk,Supports,4,q\n2,Masks were studied.,Masks cause harm,Refutes,5,q\n',
    );
    writeFileSync(join(dir, "healthver_test.csv"), "id,evidence,claim,label,topic_ip,question\n3,Zinc was given.,Zinc cures it,Neutral,6,q\n");
    const out = join(tempDir(), "hv");
    const r = await importClaimSet({ kind: "healthver", path: dir, out });
    expect(r.files).toEqual({ "dev.jsonl": 2, "test.jsonl": 1 });
    const dev = readJsonl(join(out, "dev.jsonl"));
    expect(dev[0]).toMatchObject({ premise: "Vitamin D, in trials,\nlowered risk.", hypothesis: "Vitamin D lowers risk", label: "SUPPORT" });
    expect(dev[1]!.label).toBe("CONTRADICT");
    expect(readJsonl(join(out, "test.jsonl"))[0]!.label).toBe("NO_EVIDENCE");
  });

  it("COVID-Fact and Climate-FEVER: the evidence joined, or one pair per labelled sentence; a fixed hash split keeps a claim's pairs together", async () => {
    const dir = tempDir("citeflow-sets-");
    const claims = Array.from({ length: 40 }, (_, i) => `Claim number ${i} about the virus.`);
    writeFileSync(
      join(dir, "COVIDFACT_dataset.jsonl"),
      jsonl(claims.map((c, i) => ({ claim: c, label: i % 2 ? "REFUTED" : "SUPPORTED", evidence: ["First.", "Second."], gold_source: "x", flair: "y" }))),
    );
    const out = join(tempDir(), "cf");
    const r = await importClaimSet({ kind: "covidfact", path: join(dir, "COVIDFACT_dataset.jsonl"), out });
    expect((r.files["train.jsonl"] ?? 0) + (r.files["test.jsonl"] ?? 0)).toBe(40);
    expect(r.files["test.jsonl"]).toBeGreaterThan(0);
    expect(readJsonl(join(out, "train.jsonl"))[0]!.premise).toBe("First. Second.");
    // The same claims split the same way every time.
    const again = await importClaimSet({ kind: "covidfact", path: dir, out: join(tempDir(), "cf2") });
    expect(again.files).toEqual(r.files);

    const ev = (evidence: string, evidence_label: string) => ({ evidence_id: "a:1", evidence_label, article: "a", evidence, votes: [] });
    writeFileSync(
      join(dir, "climate-fever.jsonl"),
      jsonl([
        {
          claim_id: "0",
          claim: "Warming drives bears to extinction.",
          claim_label: "SUPPORTS",
          evidences: [ev("Species go extinct.", "SUPPORTS"), ev("Bears swim.", "NOT_ENOUGH_INFO"), ev("Ice grows.", "REFUTES")],
        },
      ]),
    );
    const cf = await importClaimSet({ kind: "climate-fever", path: dir, out: join(tempDir(), "clf") });
    const split = Object.keys(cf.files);
    expect(split).toHaveLength(1);
    expect(Object.values(cf.counts)[0]).toEqual({ SUPPORT: 1, NO_EVIDENCE: 1, CONTRADICT: 1 });
  });

  it("FEVER's RTE form: entailment → SUPPORT; not_entailment is never CONTRADICT (left out and counted); files out of step are refused", async () => {
    const dir = tempDir("citeflow-fever-");
    writeFileSync(join(dir, "dev.raw.input0"), "Soul Food was released by Fox 2000.\nTelemundo is a Spanish-language network.\n");
    writeFileSync(join(dir, "dev.raw.input1"), "Fox 2000 released Soul Food.\nTelemundo is an English-language network.\n");
    writeFileSync(join(dir, "dev.label"), "entailment\nnot_entailment\n");
    const out = join(tempDir(), "fever");
    const r = await importClaimSet({ kind: "fever-rte", path: dir, out });
    const rows = Object.keys(r.files).flatMap((f) => readJsonl(join(out, f)));
    expect(rows.map((x) => x.label)).toEqual(["SUPPORT"]);
    expect(r.leftOut).toEqual({ "not_entailment (refuted or not enough info)": 1 });
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("not_entailment (refuted or not enough info): 1");
    writeFileSync(join(dir, "dev.label"), "entailment\n");
    await expect(importClaimSet({ kind: "fever-rte", path: dir, out })).rejects.toThrow(/have 2, 2 and 1 lines: they must be line for line/);
  });

  it("NLI4CT: the section's evidence lines of each trial; a comparison reads both trials; the zip is refused with what to do", async () => {
    const dir = tempDir("citeflow-nli4ct-");
    mkdirSync(join(dir, "CT json"));
    writeFileSync(join(dir, "CT json", "NCT1.json"), JSON.stringify({ "Clinical Trial ID": "NCT1", Eligibility: ["Inclusion Criteria:", "  Women over 18", "  No diabetes"] }));
    writeFileSync(join(dir, "CT json", "NCT2.json"), JSON.stringify({ "Clinical Trial ID": "NCT2", Eligibility: ["Exclusion Criteria:", "  Claustrophobia"] }));
    const st = (Type: string, Label: string, extra = {}) => ({
      Type,
      Section_id: "Eligibility",
      Primary_id: "NCT1",
      Statement: "Diabetic women are excluded.",
      Label,
      Primary_evidence_index: [2],
      ...extra,
    });
    writeFileSync(join(dir, "train.json"), JSON.stringify({ a: st("Single", "Entailment"), b: st("Comparison", "Contradiction", { Secondary_id: "NCT2", Secondary_evidence_index: [1] }) }));
    writeFileSync(join(dir, "Gold_test.json"), JSON.stringify({ c: st("Single", "Contradiction", { Primary_id: "NCT9" }) }));
    const out = join(tempDir(), "ct");
    const r = await importClaimSet({ kind: "nli4ct", path: dir, out });
    const train = readJsonl(join(out, "train.jsonl"));
    expect(train.map((x) => [x.premise, x.label])).toEqual([
      ["No diabetes", "SUPPORT"],
      ["Primary trial: No diabetes Secondary trial: Claustrophobia", "CONTRADICT"],
    ]);
    expect(r.problems).toEqual([{ where: `${join(dir, "Gold_test.json")} "c"`, problem: 'trial NCT9 or its "Eligibility" section is not in "CT json"' }]);
    await expect(importClaimSet({ kind: "nli4ct", path: join(dir, "Complete_dataset.zip"), out })).rejects.toThrow(/unzip it first/);
  });

  it("your own pairs: Citeflow's, SciFact's or MNLI's label names, a split per row; export rows read as they are", async () => {
    const f = join(tempDir(), "mine.jsonl");
    writeFileSync(
      f,
      jsonl([
        { premise: "A rose.", hypothesis: "B rose.", label: "entailment", split: "test" },
        { premise: "A fell.", hypothesis: "A rose.", label: "CONTRADICT" },
        { premise: "C.", hypothesis: "D.", label: "neutral", split: "../x" },
      ]),
    );
    const out = join(tempDir(), "mine");
    const r = await importClaimSet({ kind: "pairs", path: f, out, licence: "CC0" });
    expect(r.files).toEqual({ "test.jsonl": 1, "train.jsonl": 1 });
    expect(r.problems[0]!.problem).toMatch(/split "..\/x" is not a name/);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("| licence | CC0 |");
  });

  it("bad input: an unknown kind, an empty file, a file in another set's format — each a clear error naming it", async () => {
    const out = join(tempDir(), "x");
    await expect(importClaimSet({ kind: "scifact-open", path: ".", out })).rejects.toThrow(/unknown set kind "scifact-open" \(kinds: check-covid, healthver/);
    const dir = tempDir("citeflow-bad-");
    writeFileSync(join(dir, "healthver_dev.csv"), "");
    await expect(importClaimSet({ kind: "healthver", path: dir, out })).rejects.toThrow(`${join(dir, "healthver_dev.csv")} is empty`);
    // COVID-Fact rows named as Climate-FEVER's file.
    writeFileSync(join(dir, "climate-fever.jsonl"), jsonl([{ claim: "x", label: "SUPPORTED", evidence: ["y"] }]));
    await expect(importClaimSet({ kind: "climate-fever", path: dir, out })).rejects.toThrow(
      new RegExp(`no Climate-FEVER pair could be read: 1 row\\(s\\) refused, e.g. ${join(dir, "climate-fever.jsonl")}:1: not a Climate-FEVER row`),
    );
    // A HealthVer CSV given as Check-COVID: no corpus.json, said so.
    await expect(importClaimSet({ kind: "check-covid", path: dir, out })).rejects.toThrow(/Check-COVID needs its folder, with corpus.json/);
    expect(Object.keys(CLAIM_SETS)).toEqual(["check-covid", "healthver", "covidfact", "nli4ct", "climate-fever", "fever-rte", "pairs"]);
  });
});
