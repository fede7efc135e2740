import { readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { Cite } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import type { ReadProblem } from "../document.js";
import { sha256 } from "../pdf/reader.js";
import type { Reference } from "./reference.js";
import { readRegularFile } from "@citeflow/runstore";

export interface ReferenceFileOptions {
  /** A folder of PDFs named by entry key (`<key>.pdf`), for entries whose file field names none. */
  pdfs?: string;
}

type Csl = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** CSL names ({family, given, literal, non-dropping-particle}) → "Given Family". */
function names(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.map((n: Csl) => str(n.literal) ?? [str(n.given), str(n["non-dropping-particle"]), str(n.family)].filter(Boolean).join(" ")).filter((n): n is string => !!n);
}

function year(issued: unknown): number | undefined {
  const parts = (issued as { "date-parts"?: unknown[][] } | undefined)?.["date-parts"]?.[0]?.[0];
  const y = typeof parts === "number" ? parts : typeof parts === "string" ? Number(parts) : NaN;
  return Number.isInteger(y) ? y : undefined;
}

/** A path with its symbolic links resolved, or undefined when nothing is there. */
function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether a PDF a bibliography names may be read: a regular file (not a FIFO, a device, a folder)
 * inside the bibliography's folder or the PDF folder, after its symbolic links are resolved — the
 * rule PDF folders and Zotero's files follow. Undefined when nothing is there; why not, otherwise.
 */
function refusedPdf(path: string, roots: string[]): string | undefined {
  const at = real(path);
  if (!at) return undefined;
  const within = (root: string) => {
    const rel = relative(root, at);
    return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  };
  if (!roots.some(within)) return `${path} is outside ${roots.join(" and ")} (the bibliography's folder${roots.length > 1 ? " and --pdfs" : ""}): not read; give --pdfs a folder that holds it`;
  if (!statSync(at).isFile()) return `${path} is not a regular file (a FIFO, a device or a folder): not read`;
  return "";
}

/** A CSL item → a reference; its PDF from `file` (a path), else `<pdfs>/<key>.pdf`; `warn` hears of a PDF it names that is not read. */
function fromCsl(item: Csl, where: string, baseDir: string, o: ReferenceFileOptions, warn: (message: string) => void, file?: string): Reference | string {
  const key = str(item["citation-key"]) ?? str(item.id) ?? (typeof item.id === "number" ? String(item.id) : undefined);
  if (!key) return `no "id" or "citation-key"`;
  const candidates = [file && (isAbsolute(file) ? file : resolve(baseDir, file)), file && o.pdfs ? join(o.pdfs, file) : undefined, o.pdfs ? join(o.pdfs, `${key}.pdf`) : undefined].filter(
    (p): p is string => !!p && /\.pdf$/i.test(p),
  );
  const roots = [baseDir, ...(o.pdfs ? [o.pdfs] : [])].map((r) => real(r) ?? resolve(r));
  const pdf = candidates.find((p) => {
    const why = refusedPdf(p, roots);
    if (why) warn(why);
    return why === "";
  });
  const abstract = str(item.abstract);
  const keywords = str(item.keyword)
    ?.split(/\s*[,;]\s*/)
    .filter(Boolean);
  const title = str(item.title) ?? "";
  return {
    key,
    title,
    authors: names(item.author),
    ...(year(item.issued) !== undefined ? { year: year(item.issued)! } : {}),
    ...(str(item.DOI) ? { doi: str(item.DOI)! } : {}),
    ...(str(item.URL) ? { url: str(item.URL)! } : {}),
    ...(abstract ? { abstract } : {}),
    ...(keywords?.length ? { tags: keywords } : {}),
    where,
    ...(pdf ? { pdf: { path: pdf } } : {}),
    hash: sha256(new TextEncoder().encode(JSON.stringify([title, abstract ?? "", pdf ? sha256(readFileSync(pdf)) : ""]))),
    ...(file && !pdf ? { extra: { missingFile: file } } : {}),
  };
}

/** A CSL-JSON export (Zotero, Mendeley, Better BibTeX): an array of items. */
export function readCslJson(path: string, o: ReferenceFileOptions = {}): { refs: Reference[]; problems: ReadProblem[] } {
  let items: unknown;
  try {
    items = JSON.parse(readRegularFile(path));
  } catch (e) {
    throw new Error(`${path}: not CSL-JSON (${(e as Error).message})`, { cause: e });
  }
  if (!Array.isArray(items)) throw new Error(`${path}: not CSL-JSON: expected an array of items`);
  const refs: Reference[] = [];
  const problems: ReadProblem[] = [];
  items.forEach((item, i) => {
    const where = `${path} item ${i + 1}`;
    const warn = (message: string) => problems.push({ file: path, line: i + 1, message: `item ${i + 1}: ${message}` });
    const ref = typeof item === "object" && item !== null ? fromCsl(item as Csl, where, dirname(path), o, warn) : "not an object";
    if (typeof ref === "string") problems.push({ file: path, line: i + 1, message: `item ${i + 1}: ${ref}` });
    else refs.push(ref);
  });
  return { refs, problems };
}

/** One BibTeX entry's text and the line it starts on. */
interface Entry {
  line: number;
  text: string;
}

function entries(bib: string): Entry[] {
  const out: Entry[] = [];
  const lines = bib.split("\n");
  let current: Entry | undefined;
  lines.forEach((l, i) => {
    if (/^\s*@/.test(l)) {
      current = { line: i + 1, text: "" };
      out.push(current);
    }
    if (current) current.text += `${l}\n`;
  });
  return out;
}

/** The first PDF named in a BibTeX `file` field: "desc:path:mime; …" (Zotero, JabRef, Mendeley) or a bare path. */
function fileField(entry: string): string | undefined {
  const m = /\bfile\s*=\s*(?:\{((?:[^{}]|\{[^{}]*\})*)\}|"([^"]*)")/i.exec(entry);
  const value = m?.[1] ?? m?.[2];
  if (!value) return undefined;
  for (const part of value.split(/(?<!\\);/)) {
    const fields = part.split(/(?<!\\):/).map((f) => f.replace(/\\([:;])/g, "$1").trim());
    const path = fields.length >= 3 ? fields.slice(1, -1).join(":") : fields[0];
    if (path && (/\.pdf$/i.test(path) || /pdf/i.test(fields.at(-1) ?? ""))) return path;
  }
  return undefined;
}

/**
 * A BibTeX or BibLaTeX file, read with citation.js into CSL. Entries are parsed one by one
 * (with the file's @string macros), so a broken entry is reported with its line and the rest go
 * in. PDFs come from each entry's `file` field (relative to the .bib file or `pdfs`) or `<pdfs>/<key>.pdf`.
 */
export function readBibtex(path: string, o: ReferenceFileOptions = {}): { refs: Reference[]; problems: ReadProblem[] } {
  const bib = readRegularFile(path);
  const all = entries(bib);
  const macros = all
    .filter((e) => /^\s*@string\b/i.test(e.text))
    .map((e) => e.text)
    .join("");
  const refs: Reference[] = [];
  const problems: ReadProblem[] = [];
  for (const e of all) {
    if (/^\s*@(string|comment|preamble)\b/i.test(e.text)) continue;
    let items: Csl[];
    try {
      items = new Cite(macros + e.text, { forceType: "@biblatex/text" }).data;
    } catch (err) {
      // citation.js parses by recursion: an entry nested past its stack is said as such, not as the engine's words.
      const why = err instanceof RangeError ? "its braces or fields are nested too deep to read" : (err as Error).message.split("\n")[0];
      problems.push({ file: path, line: e.line, message: `not a readable entry: ${why}` });
      continue;
    }
    if (items.length !== 1) {
      problems.push({ file: path, line: e.line, message: "not a readable entry" });
      continue;
    }
    const warn = (message: string) => problems.push({ file: path, line: e.line, message });
    const ref = fromCsl(items[0]!, `${path}:${e.line}`, dirname(path), o, warn, fileField(e.text));
    if (typeof ref === "string") problems.push({ file: path, line: e.line, message: ref });
    else refs.push(ref);
  }
  return { refs, problems };
}
