// PDF benchmark: Citeflow's reader (pdf.js + its layout pass) beside Poppler's pdftotext on the same
// LaTeX-typeset two-column papers of SciFact abstracts (scripts/papers.mjs):
//   - pages per second, text extraction alone (median of 3 passes over every file);
//   - reading-order errors: source words missing or out of order in the extracted body
//     (longest common subsequence of words; running heads and the reference list cut off for the peer);
//   - ingest pages per second end to end (read, chunk, embed with the offline static-use-en, LanceDB).
// Needs pdflatex and pdftotext (data and models: bench/paths.mjs). Run: npm run bench
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readingOrder } from "@citeflow/eval";
import { loadEmbedder } from "@citeflow/models";
import { extractPdf, LanceStore, newTally, openScholarChunker, pdfDocuments } from "@citeflow/retrieval";
import { plainAbstracts, requireTool, sourceBody, typesetPaper } from "../scripts/papers.mjs";
import { MODELS } from "./paths.mjs";

requireTool("pdftotext");
const PAPERS = Number(process.env.CITEFLOW_BENCH_PAPERS ?? 8);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), "citeflow-bench-pdf-"));
const abstracts = await plainAbstracts(PAPERS * 14);
const papers = [];
for (let i = 0; i < PAPERS; i++) papers.push(typesetPaper(join(dir, "papers"), `paper${i}`, abstracts.slice(i * 14, i * 14 + 11), abstracts.slice(i * 14 + 11, i * 14 + 14)));
const bytes = papers.map((p) => new Uint8Array(readFileSync(p.pdf)));

async function timed(fn) {
  const times = [];
  let out;
  for (let pass = 0; pass < 3; pass++) {
    const t0 = performance.now();
    out = await fn();
    times.push((performance.now() - t0) / 1000);
  }
  return { seconds: median(times), out };
}

const ours = await timed(() => Promise.all(bytes.map((b) => extractPdf(b.slice()))));
const pages = ours.out.reduce((n, t) => n + t.pageCount, 0);
const poppler = (args) => timed(() => papers.map((p) => execFileSync("pdftotext", [...args, p.pdf, "-"], { encoding: "utf8", maxBuffer: 1 << 26 })));
const plain = await poppler([]);
const layout = await poppler(["-layout"]);

// For the peer: the body is what comes before the reference list; its running heads stay in (it has no notion of them).
const body = (t) => t.split(/\n\s*References\s*\n/)[0];
const errors = (texts, pick) =>
  texts.reduce(
    (acc, t, i) => {
      const s = readingOrder(sourceBody(papers[i]), pick(t));
      return { errors: acc.errors + s.errors, extra: acc.extra + s.extra, words: acc.words + s.words };
    },
    { errors: 0, extra: 0, words: 0 },
  );

const rows = [
  ["Citeflow (pdf.js + layout)", ours.seconds, errors(ours.out, (t) => t.text)],
  ["pdftotext (Poppler 22)", plain.seconds, errors(plain.out, body)],
  ["pdftotext -layout", layout.seconds, errors(layout.out, body)],
];

// Ingest end to end into a new LanceDB store.
const store = await LanceStore.open(join(dir, "store"));
const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
const t0 = performance.now();
const tally = newTally();
const report = { read: 0, problems: [] };
const result = await store.ingest(await pdfDocuments(join(dir, "papers"), store, report, tally), { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
const ingestSeconds = (performance.now() - t0) / 1000;
const t1 = performance.now();
const again = newTally();
await store.ingest(await pdfDocuments(join(dir, "papers"), store, report, again), { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
const unchangedSeconds = (performance.now() - t1) / 1000;

console.log(`PDF text: ${PAPERS} two-column LaTeX papers, ${pages} pages, ${rows[0][2].words} source words; median of 3 passes`);
console.log("| extractor | pages/s | ratio to pdftotext | reading-order errors | extra words |");
console.log("|---|---|---|---|---|");
for (const [name, seconds, e] of rows)
  console.log(`| ${name} | ${(pages / seconds).toFixed(1)} | ${(plain.seconds / seconds).toFixed(2)}× | ${e.errors} (${((100 * e.errors) / e.words).toFixed(2)} %) | ${e.extra} |`);
console.log(
  `ingest (read + chunk + embed static-use-en + LanceDB): ${(pages / ingestSeconds).toFixed(1)} pages/s (${result.added} passages in ${ingestSeconds.toFixed(2)} s); again, unchanged: ${unchangedSeconds.toFixed(2)} s (${again.unchanged}/${again.entries} files skipped by hash)`,
);
if (report.problems.length) console.log(`problems: ${report.problems.map((p) => p.message).join("; ")}`);
rmSync(dir, { recursive: true, force: true });
