// Citeflow's NLI model, pair by pair, on each claim-verification set's own test split (imported with `citeflow datasets
// import`) and on SciFact's held-out and dev rationales (SUPPORT / CONTRADICT gold sentences of those claims), through
// `citeflow eval nli` (transformers.js, the shipped int8 file), beside each set's published baselines. Run alone:
//
//   node bench/nli-sets.mjs <claims data folder>          (the six sets' folder: check-covid/, healthver/, nli4ct/, …)
//   CITEFLOW_BENCH_NLI_B=<model id> node bench/nli-sets.mjs <folder>   also a second model, with B − A per set
//
// The sets are read by path and never copied into the repository; NLI4CT's zip is unzipped into a temporary folder
// with the unzip command (Debian: apt-get install unzip).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MODELS } from "@citeflow/models";
import { DATA, scratch } from "./paths.mjs";

const folder = process.argv[2];
if (!folder || !existsSync(folder)) {
  console.error("usage: node bench/nli-sets.mjs <claims data folder>");
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(root, "packages", "cli", "dist", "bin.js");
const work = scratch("citeflow-bench-nli-sets-");
const cli = (args) => execFileSync(process.execPath, [BIN, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 });
// The shipped model from the repository's models/ folder (what npm run models installs), unless $CITEFLOW_MODELS names one.
const modelsDir = join(root, "models");
const A = process.env.CITEFLOW_BENCH_NLI_A || DEFAULT_MODELS.nli;
const B = process.env.CITEFLOW_BENCH_NLI_B;

// Each set's test split, and what its paper reports on it (the metric, the model and its size).
const unzipped = join(work, "nli4ct");
execFileSync("unzip", ["-q", join(folder, "nli4ct", "Complete_dataset.zip"), "-d", unzipped]);
const sets = [
  ["check-covid", join(folder, "check-covid"), "Check-COVID test (composed + extracted)", "F1 76.99 (the paper's fine-tuned fact-checking system), 69.90 (GPT-3.5 prompted); Wang et al., 2023"],
  ["healthver", join(folder, "healthver"), "HealthVer test", "macro-F1 79.60 (T5), 77.21 (SciBERT-base, 110 M parameters), each fine-tuned on HealthVer's training split (the set's leaderboard)"],
  [
    "nli4ct",
    join(unzipped, "Complete_dataset"),
    "NLI4CT gold test (no NO_EVIDENCE rows)",
    "F1 0.834 (Flan-T5 fine-tuned, 2nd of 40 teams), 0.701 (T5-base ensemble, 8th); most systems not significantly above the majority class (Jullien et al., 2023)",
  ],
  ["covidfact", join(folder, "covidfact"), "COVID-Fact (fixed hash test split)", "not comparable: the paper's split differs"],
  ["climate-fever", join(folder, "climate-fever"), "Climate-FEVER (fixed hash test split, per evidence sentence)", "not comparable: the paper's split differs"],
];
const files = [];
for (const [kind, path, label, published] of sets) {
  const out = join(work, kind);
  cli(["datasets", "import", kind, path, "--out", out]);
  files.push([label, join(out, "test.jsonl"), published]);
}
// SciFact: the gold rationale sentences of the held-out claims (the headline split) and of the dev claims.
const corpus = new Map(
  readFileSync(join(DATA, "scifact", "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((d) => [String(d.doc_id), d.abstract]),
);
const claims = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
for (const [name, key, label] of [
  ["scifact-heldout.json", "heldout_ids", "SciFact held-out rationales (S vs C)"],
  ["scifact-dev.json", "dev_ids", "SciFact dev rationales (S vs C)"],
]) {
  const ids = new Set(JSON.parse(readFileSync(join(root, "bench", name), "utf8"))[key]);
  const rows = claims
    .filter((c) => ids.has(c.id))
    .flatMap((c) =>
      Object.entries(c.evidence).flatMap(([doc, sets]) =>
        sets.flatMap((s) => s.sentences.map((i) => ({ premise: corpus.get(doc)[i], hypothesis: c.claim, label: s.label, metadata: { source: "scifact" } }))),
      ),
    );
  const f = join(work, name.replace(".json", ".jsonl"));
  writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  files.push([label, f, "—"]);
}

const f3 = (x) => (x === undefined || x === null ? "–" : x.toFixed(3));
console.log(`NLI model A: ${A}${B ? `; B: ${B}` : ""} (${modelsDir}); pairs/s in each row are this machine's, run alone`);
console.log("| set | pairs | accuracy | macro-F1 | SUPPORT vs CONTRADICT | pairs/s |" + (B ? " B − A accuracy (95 % interval) | B − A S vs C |" : "") + " published |");
console.log("|---|---|---|---|---|---|" + (B ? "---|---|" : "") + "---|");
for (const [label, file, published] of files) {
  if (B) {
    const r = JSON.parse(cli(["eval", "nli", "--pairs", file, "--compare", A, B, "--models-dir", modelsDir, "--json"]));
    const s = r.a.scores;
    const d = (x) => (x ? `${x.difference >= 0 ? "+" : ""}${x.difference.toFixed(3)} (${x.interval95.map((v) => v.toFixed(3)).join(" to ")})` : "–");
    console.log(
      `| ${label} | ${s.pairs} | ${f3(s.accuracy)} | ${f3(s.macro_f1)} | ${f3(s.support_vs_contradict)} | ${r.a.pairs_per_second.toFixed(0)} | ${d(r.accuracy)} | ${d(r.support_vs_contradict)} | ${published} |`,
    );
  } else {
    const s = JSON.parse(cli(["eval", "nli", "--pairs", file, "--model", A, "--models-dir", modelsDir, "--json"]));
    console.log(`| ${label} | ${s.pairs} | ${f3(s.accuracy)} | ${f3(s.macro_f1)} | ${f3(s.support_vs_contradict)} | ${s.pairs_per_second.toFixed(0)} | ${published} |`);
  }
}
