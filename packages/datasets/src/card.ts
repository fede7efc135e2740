import { FORMAT_DOCS, MNLI_MAPPING, NLI_LABELS, type Format, type Row } from "./formats.js";

/** Licences of the corpora Citeflow reads, by a passage's `metadata.source`. */
export const SOURCE_LICENCES: Record<string, string> = {
  scifact: "SciFact: claims CC BY 4.0; abstracts ODC-By 1.0 (from S2ORC)",
  pubmedqa: "PubMedQA: MIT",
  scholarqabench: "ScholarQABench: ODC-BY data, MIT code",
  "semantic-scholar": "Semantic Scholar API: abstracts under the S2 API licence agreement",
  core: "CORE API: see each paper's licence in CORE",
  pubmed: "PubMed: abstracts under the copyright of their publishers (NLM terms)",
  arxiv: "arXiv: each paper's own licence",
};

export interface CardInput {
  format: Format;
  rows: RowTally;
  runs: number;
  /** Self-feedback loops taken from the cache: they carry no trace of their model calls. */
  loopsFromCache?: number;
  rubric?: { organisation: number; factuality: number; kept: number; dropped: number };
  skippedRuns: string[];
  /** Corrections lines that are not corrections, left out. */
  correctionProblems?: Array<{ file: string; line: number; message: string }>;
  removed: { exact: number; near: number; trivial: number };
  split: number;
  seed: number;
  metadata: boolean;
  command: string;
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** What the card says of an export's rows, counted as each is written (the rows are not kept). */
export class RowTally {
  /** Rows by split, and by label within it. */
  readonly splits = new Map<string, { rows: number; byLabel: Map<string, number> }>();
  readonly sources = new Map<string, number>();
  readonly models = new Map<string, number>();
  readonly graphs = new Map<string, number>();
  /** Ids of the user corrections applied. */
  readonly corrections = new Set<string>();
  /** Rows whose nodes named no model (a cached node's result carries no model spans). */
  unrecordedModels = 0;

  constructor(splitNames: string[]) {
    for (const n of splitNames) this.splits.set(n, { rows: 0, byLabel: new Map() });
  }

  add(split: string, r: Row): void {
    const s = this.splits.get(split)!;
    s.rows++;
    if (r.label) bump(s.byLabel, r.label);
    for (const src of r.provenance.sources) bump(this.sources, src);
    for (const [k, v] of Object.entries(r.provenance.models)) bump(this.models, `${k}: ${v}`);
    if (Object.keys(r.provenance.models).length === 0) this.unrecordedModels++;
    bump(this.graphs, `${r.provenance.graph} (${r.provenance.graphHash.slice(0, 12)})`);
    for (const id of r.provenance.corrections ?? []) this.corrections.add(id);
  }
}

/** What is wrong with the split as made: a side left empty by the hash split (too few questions for the fraction). */
export function splitWarnings(rows: RowTally, ratio: number, seed: number): string[] {
  if (ratio >= 1) return [];
  const count = (n: string) => rows.splits.get(n)?.rows ?? 0;
  const total = count("train") + count("validation");
  return (["train", "validation"] as const)
    .filter((n) => total > 0 && count(n) === 0)
    .map(
      (n) =>
        `the ${n} split is empty: the hash split at --split ${ratio} --seed ${seed} put all ${total} rows on the other side (too few questions for that fraction); try another --seed, or --split 1 for everything in train`,
    );
}

/** The dataset card (README.md) written next to every export. */
export function datasetCard(c: CardInput): string {
  const labels = [...new Set([...c.rows.splits.values()].flatMap((s) => [...s.byLabel.keys()]))].sort();
  const splitRows = [...c.rows.splits].map(([name, s]) => `| ${name} | ${s.rows} |${labels.map((l) => ` ${s.byLabel.get(l) ?? 0} |`).join("")}`);
  const sources = [...c.rows.sources.entries()].sort();
  const models = [...c.rows.models.entries()].sort();
  const graphs = [...c.rows.graphs.entries()].sort();
  const lines = [
    `# Citeflow export: ${c.format}`,
    "",
    `Format: ${FORMAT_DOCS[c.format]}. One JSON object per line.`,
    "",
    "## Counts",
    "",
    `| split | rows |${labels.map((l) => ` ${l} |`).join("")}`,
    `|---|---|${labels.map(() => "---|").join("")}`,
    ...splitRows,
    "",
    ...splitWarnings(c.rows, c.split, c.seed).flatMap((w) => [`Warning: ${w}.`, ""]),
    `From ${c.runs} finished runs${c.skippedRuns.length ? `; ${c.skippedRuns.length} runs were left out (${c.skippedRuns.slice(0, 5).join(", ")}${c.skippedRuns.length > 5 ? ", …" : ""})` : ""}.`,
    "",
    ...(c.correctionProblems?.length
      ? [
          `${c.correctionProblems.length} corrections line(s) were left out: ${c.correctionProblems
            .slice(0, 5)
            .map((p) => `${p.file}:${p.line} (${p.message})`)
            .join("; ")}${c.correctionProblems.length > 5 ? "; …" : ""}.`,
          "",
        ]
      : []),
  ];
  if (c.format === "nli")
    lines.push(
      "## Labels",
      "",
      "| label | label_id | MNLI |",
      "|---|---|---|",
      ...Object.entries(NLI_LABELS).map(([l, id]) => `| ${l} | ${id} | ${MNLI_MAPPING[l as keyof typeof MNLI_MAPPING]} |`),
      "",
      "Premise: the evidence sentence the NLI model judged closest (else the cited passage); hypothesis: the claim. Claims citing a passage that was never retrieved (NO_REFERENCE) are left out.",
      "",
    );
  if (c.format === "rerank" || c.format === "rerank-scored")
    lines.push(
      "## Relevance",
      "",
      "Sources: LLM ratings from `rate.relevance` (4–5 relevant, 1–2 not, 3 left out, as OpenScholar trained its reranker); qrels (`--qrels`), where the first retriever's other passages are hard negatives; users' relevance corrections, which win.",
      "",
    );
  if (c.format === "openscholar")
    lines.push(
      "## Types",
      "",
      "- answer_generation: the generator's prompt (question and numbered passages) → the final answer",
      "- feedback_generation: the feedback prompt (question, passages, first answer) → the feedback items, as the model wrote them",
      "- feedback_incorporation: the edit prompt (previous answer, one feedback item, passages) → the revised answer; only edits the loop kept (new/old length > its minRatio)",
      "",
      `Feedback rows come from the traces of self-feedback loops that ran. ${c.loopsFromCache ? `${c.loopsFromCache} loops were taken from the cache and have no trace: re-run them with --force to include them.` : "No loop was taken from the cache."}`,
      "",
    );
  if (c.format === "dpo" || c.format === "dpo-openai" || c.format === "kto")
    lines.push(
      "## Pairs",
      "",
      "Chosen / desirable: a user's corrected answer (`citeflow correct`) when there is one, else the pipeline's final answer (after self-feedback and post-hoc citation). Rejected / undesirable: the uncorrected final answer when there is a correction, else the generator's first draft. Runs where the two are equal give no row.",
      "",
    );
  lines.push(
    "## Sources and licences",
    "",
    ...(sources.length ? sources.map(([s, n]) => `- ${SOURCE_LICENCES[s] ?? `${s}: licence unknown — check the corpus before you publish`} (${n} rows)`) : ["- no source recorded on the passages"]),
    "",
    "## Models",
    "",
    ...models.map(([m, n]) => `- ${m} (${n} rows)`),
    ...(c.rows.unrecordedModels ? [`- not recorded for ${c.rows.unrecordedModels} rows (rows from cached nodes carry no model spans)`] : []),
    "",
    "## Graphs",
    "",
    ...graphs.map(([g, n]) => `- ${g}: ${n} rows`),
    "",
    "## Filters",
    "",
    `- runs: only runs with status ok`,
    ...(c.rubric
      ? [
          `- rubric (judge.rubric, 1–5): organisation ≥ ${c.rubric.organisation} and factuality / citation accuracy ≥ ${c.rubric.factuality}: ${c.rubric.kept} answers kept, ${c.rubric.dropped} dropped`,
        ]
      : []),
    "- pairwise: where the graph has a judge.pairwise node, its preferred answer is the answer and its rejected one the rejected side",
    `- corrections applied (they win over the model's output): ${c.rows.corrections.size}`,
    `- exact duplicates removed: ${c.removed.exact}`,
    `- near duplicates removed (same text after lower-casing and dropping punctuation and spacing): ${c.removed.near}`,
    ...(c.format === "nli" ? [`- pairs whose premise is the hypothesis removed (a quote checked against its own sentence teaches nothing): ${c.removed.trivial}`] : []),
    `- split: ${c.split} train by a hash of (seed ${c.seed}, question); rows of one question stay on one side`,
    `- secrets: environment values named *KEY, *TOKEN, *SECRET, *PASSWORD and anything shaped like an API key are replaced by [redacted]`,
    `- metadata back-links (run id, node id, graph hash, passage and doc ids, models): ${c.metadata ? "included" : "stripped (--no-metadata)"}`,
    "",
    "## Reproduce",
    "",
    "```sh",
    c.command,
    "```",
    "",
  );
  return lines.join("\n");
}
