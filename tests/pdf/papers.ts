import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CorpusDocument } from "@citeflow/retrieval";
import { DATA } from "../scifact.js";
import { readBeirCorpus } from "@citeflow/retrieval";

/**
 * Real PDFs for the tests, typeset by Debian's LaTeX from real text (SciFact abstracts): a
 * two-column article with running heads, page numbers, sections and a reference list; and from it,
 * one with no text layer (Ghostscript rasterises every page), one encrypted with a password
 * (qpdf), one truncated. `.ci/run` installs the tools; without them the suites fail saying so.
 */

const TOOLS = { pdflatex: "texlive-latex-base", gs: "ghostscript", qpdf: "qpdf", pdftotext: "poppler-utils" } as const;

export function requireTool(name: keyof typeof TOOLS): void {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
  } catch {
    throw new Error(`${name} is needed to build the test PDFs: apt-get install ${TOOLS[name]} (.ci/run installs it)`);
  }
}

/** Abstracts a stock LaTeX setup typesets as written: ASCII letters, digits and plain punctuation. */
const PLAIN = /^[A-Za-z0-9 ,.;:()%'-]+$/;

export async function plainAbstracts(n: number): Promise<CorpusDocument[]> {
  const out: CorpusDocument[] = [];
  for await (const d of readBeirCorpus(join(DATA, "scifact", "corpus.jsonl"))) {
    if (!PLAIN.test(d.text) || !PLAIN.test(d.title) || /--|''|'\s|\s'/.test(d.text + d.title) || d.text.split(" ").length < 120) continue;
    if (out.push(d) >= n) break;
  }
  return out;
}

const tex = (s: string) => s.replaceAll("%", "\\%");

export interface Paper {
  pdf: string;
  title: string;
  author: string;
  year: number;
  /** The body's sections in order: heading, then the abstract's text. */
  sections: Array<{ heading: string; text: string }>;
  references: string[];
  running: string;
}

/** Typesets `docs` as one two-column paper in `dir`; each abstract is a section. */
export function typesetPaper(dir: string, name: string, docs: CorpusDocument[], refs: CorpusDocument[]): Paper {
  requireTool("pdflatex");
  mkdirSync(dir, { recursive: true });
  const title = docs[0]!.title.replace(/\.$/, "");
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
    `\\begin{thebibliography}{${references.length}}`,
    ...references.map((r, i) => `\\bibitem{r${i}} ${tex(r)}`),
    "\\end{thebibliography}",
    "\\end{document}",
  ].join("\n");
  writeFileSync(join(dir, `${name}.tex`), source);
  execFileSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", `${name}.tex`], { cwd: dir, stdio: "ignore" });
  return { pdf: join(dir, `${name}.pdf`), title, author, year: 2023, sections, references, running };
}

/** The same pages as pictures only: what a scan without OCR looks like. */
export function rasterised(pdf: string, out: string): string {
  requireTool("gs");
  execFileSync("gs", ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfimage24", "-r60", `-sOutputFile=${out}`, pdf], { stdio: "ignore" });
  return out;
}

/** Encrypted with a user password (AES-256): it cannot be opened without it. */
export function encrypted(pdf: string, out: string): string {
  requireTool("qpdf");
  execFileSync("qpdf", ["--encrypt", "secret", "owner", "256", "--", pdf, out], { stdio: "ignore" });
  return out;
}

/** The first `fraction` of the file's bytes: a download or copy cut short. */
export function truncated(pdf: string, out: string, fraction = 0.5): string {
  const bytes = readFileSync(pdf);
  writeFileSync(out, bytes.subarray(0, Math.floor(bytes.length * fraction)));
  return out;
}
