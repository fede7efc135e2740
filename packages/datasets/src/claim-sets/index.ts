import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@citeflow/runstore";
import { NLI_LABELS } from "../formats.js";
import { checkCovid } from "./check-covid.js";
import { climateFever } from "./climate-fever.js";
import { covidFact } from "./covidfact.js";
import { fever } from "./fever.js";
import { healthVer } from "./healthver.js";
import { nli4ct } from "./nli4ct.js";
import { userPairs } from "./pairs.js";
import type { ClaimSet, ImportedPair, ImportProblem } from "./types.js";

export type { ClaimSet, ImportedPair, ImportProblem, PairLabel } from "./types.js";
export { hashSplit } from "./types.js";

/** Every set `citeflow datasets import` reads, by kind. */
export const CLAIM_SETS: Record<string, ClaimSet> = Object.fromEntries([checkCovid, healthVer, covidFact, nli4ct, climateFever, fever, userPairs].map((s) => [s.kind, s]));

export interface ImportOptions {
  kind: string;
  /** The set's folder, or one of its files. */
  path: string;
  out: string;
  /** For `pairs`: the licence of the user's own set, written on the card. */
  licence?: string;
  command?: string;
}

export interface ImportResult {
  /** Split → rows written to `<split>.jsonl`. */
  files: Record<string, number>;
  /** Split → label → rows. */
  counts: Record<string, Record<string, number>>;
  leftOut: Record<string, number>;
  problems: ImportProblem[];
}

/** What a program reads of an import: the card's facts (`import.json`). */
export interface ImportManifest extends ImportResult {
  source: string;
  kind: string;
  origin: string;
  licence: string;
  path: string;
  command: string;
}

/** A set's row in `export --format nli`'s shape, with where it came from. */
const line = (kind: string, p: ImportedPair) =>
  JSON.stringify({ premise: p.premise, hypothesis: p.hypothesis, label: p.label, label_id: NLI_LABELS[p.label], metadata: { source: kind, id: p.id, original_label: p.originalLabel } });

const SHOWN_PROBLEMS = 20;

/**
 * Reads a claim-verification set and writes it as Citeflow NLI rows: `<out>/<split>.jsonl` for each of
 * the set's splits (its own test split kept apart in test.jsonl), a card (`README.md`) and `import.json`.
 * Rows that cannot be read are named (file and line) and left out; the rest go through. A path that
 * holds no row of the set at all is refused.
 */
export async function importClaimSet(o: ImportOptions): Promise<ImportResult> {
  const set = CLAIM_SETS[o.kind];
  if (!set) throw new Error(`unknown set kind "${o.kind}" (kinds: ${Object.keys(CLAIM_SETS).join(", ")})`);
  const { pairs, problems, leftOut } = await set.read(o.path);
  if (pairs.length === 0)
    throw new Error(
      `${o.path}: no ${set.title} pair could be read${
        problems.length
          ? `: ${problems.length} row(s) refused, e.g. ${problems
              .slice(0, 3)
              .map((p) => `${p.where}: ${p.problem}`)
              .join("; ")}`
          : ""
      }${o.kind === "pairs" ? "" : ` (is it a ${set.title} file?)`}`,
    );
  const bySplit = new Map<string, ImportedPair[]>();
  for (const p of pairs) bySplit.set(p.split, [...(bySplit.get(p.split) ?? []), p]);
  const files: Record<string, number> = {};
  const counts: Record<string, Record<string, number>> = {};
  mkdirSync(o.out, { recursive: true });
  for (const [split, rows] of [...bySplit].sort(([a], [b]) => a.localeCompare(b))) {
    writeFileAtomic(join(o.out, `${split}.jsonl`), rows.map((p) => line(set.kind, p)).join("\n") + "\n", o.out);
    files[`${split}.jsonl`] = rows.length;
    counts[split] = Object.fromEntries(Object.keys(NLI_LABELS).map((l) => [l, rows.filter((p) => p.label === l).length]));
  }
  const command = o.command ?? `citeflow datasets import ${o.kind} ${o.path} --out ${o.out}`;
  const licence = o.kind === "pairs" ? (o.licence ?? "not stated (--licence)") : set.licence;
  const manifest: ImportManifest = { source: set.title, kind: set.kind, origin: set.origin, licence, path: o.path, command, files, counts, leftOut, problems };
  writeFileAtomic(join(o.out, "import.json"), JSON.stringify(manifest, null, 1) + "\n", o.out);
  writeFileAtomic(join(o.out, "README.md"), card(set, manifest), o.out);
  return { files, counts, leftOut, problems };
}

function card(set: ClaimSet, m: ImportManifest): string {
  const labels = Object.keys(NLI_LABELS);
  const mapping = Object.entries(set.labels)
    .map(([from, to]) => `${from} → ${to ?? "left out"}`)
    .join(", ");
  return [
    `# ${set.title} as Citeflow NLI rows`,
    "",
    `Rows in \`citeflow export --format nli\`'s shape (\`{"premise", "hypothesis", "label", "label_id", "metadata"}\`), made by \`citeflow datasets import\`.`,
    "",
    "| | |",
    "|---|---|",
    `| source | ${set.title} |`,
    `| public origin | ${set.origin} |`,
    `| licence | ${m.licence} |`,
    `| read from | \`${m.path}\` |`,
    `| command | \`${m.command}\` |`,
    `| labels | ${mapping} |`,
    "",
    "## Rows",
    "",
    `| file | ${labels.join(" | ")} | total |`,
    `|---|${labels.map(() => "---|").join("")}---|`,
    ...Object.entries(m.counts).map(([split, c]) => `| ${split}.jsonl | ${labels.map((l) => c[l]).join(" | ")} | ${m.files[`${split}.jsonl`]} |`),
    "",
    "Measure on `test.jsonl` (and `dev.jsonl` to choose), never train on it: it is the set's own test split (or, for a set without one, its fixed hash split).",
    "",
    ...set.notes.map((n) => `- ${n}`),
    "",
    ...(Object.keys(m.leftOut).length ? ["## Left out on purpose", "", ...Object.entries(m.leftOut).map(([why, n]) => `- ${why}: ${n}`), ""] : []),
    ...(m.problems.length
      ? [
          "## Rows that could not be read",
          "",
          `${m.problems.length} row(s), left out${m.problems.length > SHOWN_PROBLEMS ? ` (the first ${SHOWN_PROBLEMS}; all in import.json)` : ""}:`,
          "",
          ...m.problems.slice(0, SHOWN_PROBLEMS).map((p) => `- ${p.where}: ${p.problem}`),
          "",
        ]
      : []),
  ].join("\n");
}
