// Real PDFs from real text, typeset by Debian's LaTeX: a two-column article of SciFact abstracts
// with running heads, page numbers, sections and a reference list; and from it, one with no text
// layer (Ghostscript rasterises each page), one encrypted with a password (qpdf), one truncated.
// Used by the PDF tests and bench/pdf.mjs. `.ci/run` installs the tools.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataFolder, readBeirCorpus } from "@citeflow/retrieval";

const TOOLS = { pdflatex: "texlive-latex-base", gs: "ghostscript", qpdf: "qpdf", pdftotext: "poppler-utils" };

/** @param {keyof typeof TOOLS} name */
export function requireTool(name) {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
  } catch {
    throw new Error(`${name} is needed to build the test PDFs: apt-get install ${TOOLS[name]} (.ci/run installs it)`);
  }
}

/** Abstracts a stock LaTeX setup typesets as written: ASCII letters, digits and plain punctuation. */
const PLAIN = /^[A-Za-z0-9 ,.;:()%'-]+$/;

/** The first `n` such SciFact abstracts (of 120 words or more), after skipping `skip`. */
export async function plainAbstracts(n, skip = 0) {
  const data = dataFolder(process.env);
  if (!data) throw new Error("no SciFact corpus (the papers' text): set CITEFLOW_DATA to a data folder");
  const out = [];
  let seen = 0;
  for await (const d of readBeirCorpus(join(data.dir, "scifact", "corpus.jsonl"))) {
    if (!PLAIN.test(d.text) || !PLAIN.test(d.title) || /--|''|'\s|\s'/.test(d.text + d.title) || d.text.split(" ").length < 120) continue;
    if (seen++ < skip) continue;
    if (out.push(d) >= n) break;
  }
  return out;
}

const tex = (s) => s.replaceAll("%", "\\%");

/**
 * Typesets `docs` as one two-column paper `<dir>/<name>.pdf`, each abstract a section, `refs`'
 * titles its reference list. Returns what the PDF should read as.
 */
export function typesetPaper(dir, name, docs, refs) {
  requireTool("pdflatex");
  mkdirSync(dir, { recursive: true });
  const title = docs[0].title.replace(/\.$/, "");
  const author = "Ada Lovelace and Charles Babbage";
  const running = "Citeflow test corpus";
  const sections = docs.map((d, i) => ({ heading: `Study ${i + 1}`, text: d.text }));
  const references = refs.map((r, i) => `Author ${String.fromCharCode(65 + i)}. ${r.title.replace(/\.$/, "")}. Journal of Tests, ${2000 + i}.`);
  const source = [
    "\\documentclass[twocolumn,10pt]{article}",
    `\\pdfinfo{/Title (${title}) /Author (${author}) /CreationDate (D:20230615120000Z)}`,
    `\\pagestyle{myheadings}\\markright{${running}}`,
    `\\title{${tex(title)}}\\author{${author}}\\date{}`,
    "\\begin{document}\\maketitle",
    ...sections.map((s) => `\\section*{${s.heading}}\n${tex(s.text)}\n`),
    ...(references.length ? [`\\begin{thebibliography}{${references.length}}`, ...references.map((r, i) => `\\bibitem{r${i}} ${tex(r)}`), "\\end{thebibliography}"] : []),
    "\\end{document}",
  ].join("\n");
  writeFileSync(join(dir, `${name}.tex`), source);
  execFileSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", `${name}.tex`], { cwd: dir, stdio: "ignore" });
  return { pdf: join(dir, `${name}.pdf`), title, author, year: 2023, sections, references, running };
}

/** The body a reader should get from a typeset paper: title, authors, then each section. */
export const sourceBody = (p) => [p.title, p.author, ...p.sections.map((s) => `${s.heading}\n${s.text}`)].join("\n");

/** The same pages as pictures only: what a scan without OCR looks like. */
export function rasterised(pdf, out) {
  requireTool("gs");
  execFileSync("gs", ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfimage24", "-r60", `-sOutputFile=${out}`, pdf], { stdio: "ignore" });
  return out;
}

/** Encrypted with a user password (AES-256): it cannot be opened without it. */
export function encrypted(pdf, out) {
  requireTool("qpdf");
  execFileSync("qpdf", ["--encrypt", "secret", "owner", "256", "--", pdf, out], { stdio: "ignore" });
  return out;
}

/** The first `fraction` of the file's bytes: a download or copy cut short. */
export function truncated(pdf, out, fraction = 0.5) {
  const bytes = readFileSync(pdf);
  writeFileSync(out, bytes.subarray(0, Math.floor(bytes.length * fraction)));
  return out;
}
