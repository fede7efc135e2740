import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { adapterCard, findAdapter, splitAdapter } from "./adapter.js";
import { DEFAULT_MODELS } from "./interfaces.js";
import { resolveModel } from "./resolve.js";
import { teiServer, vllmServer } from "./tei.js";
import { withoutCredentials } from "@citeflow/core";
import { ModelIntegrityError, ONNX_MODEL_FILES, SUMS_FILE, verifyModelFiles } from "./sums.js";
import { calibrationNote } from "./calibration.js";

/** A trained model's card, read for showing: where it is, what it says of itself, and its table rows (base, data, command, commit, held-out scores…). */
export interface ModelCard {
  path: string;
  /** The card's first paragraph. */
  summary: string;
  /** Each two-column table row of the card, in order: [what, value]. */
  facts: Array<[string, string]>;
}

/** Cards past this size are read only this far (a card is a page, not a file to stream). */
const CARD_BYTES = 64 * 1024;

/**
 * Where a model's card is, when it has one: for `base+adapter`, the adapter's (README.md beside
 * adapter.gguf); for a model id, README.md in its folder when SHA256SUMS is there too (the two
 * files `citeflow train` writes with every model it makes). Undefined for a model without one.
 */
export function modelCardPath(name: string, dirs: string[]): string | undefined {
  const { adapter } = splitAdapter(name);
  if (adapter) {
    const path = findAdapter(adapter, dirs);
    return path ? adapterCard(path) : undefined;
  }
  try {
    const { localDir } = resolveModel(name, { modelsDirs: dirs, allowDownloads: false });
    const card = localDir && join(localDir, name, "README.md");
    return card && existsSync(card) && existsSync(join(localDir, name, "SHA256SUMS")) ? resolve(card) : undefined;
  } catch {
    return undefined;
  }
}

/** The card's first paragraph and its table rows (a card is Markdown: a title, a paragraph, tables). */
export function parseCard(text: string): Omit<ModelCard, "path"> {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() && !l.startsWith("#"));
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && !l.trim());
  const summary =
    start < 0
      ? ""
      : lines
          .slice(start, end < 0 ? undefined : end)
          .join(" ")
          .trim();
  const facts: Array<[string, string]> = [];
  for (const line of lines) {
    const cells = /^\|(.*)\|\s*$/
      .exec(line.trim())?.[1]
      ?.split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, "|"));
    if (!cells || cells.length !== 2) continue;
    const [what, value] = cells as [string, string];
    // Header rows ("| | |", "| metric | value |") and separators ("|---|---|") are not facts.
    if (!what || /^:?-+:?$/.test(what) || (what === "metric" && value === "value")) continue;
    facts.push([what, value]);
  }
  return { summary, facts };
}

/** The card of a model, read and parsed, or undefined when it has none. */
export function modelCard(name: string, dirs: string[]): ModelCard | undefined {
  const path = modelCardPath(name, dirs);
  if (!path || !statSync(path).isFile()) return undefined;
  const text = readFileSync(path).subarray(0, CARD_BYTES).toString("utf8");
  return { path, ...parseCard(text) };
}

/** What a run's first lines add after a local model's name: nothing when its sums check, a warning when it has none (unless `quiet`). A mismatch throws. */
export function verificationNote(folder: string, quiet = false): string {
  return verifyModelFiles(folder, ONNX_MODEL_FILES, true) === "verified" || quiet
    ? ""
    : `; unverified: no ${SUMS_FILE} in ${folder} (set CITEFLOW_UNVERIFIED_MODELS=1 to load such models without this warning)`;
}

/**
 * How a model is named in what the product prints: its id, and for a model with a card
 * (Citeflow's trained models) where the card is; a local model without sums is said to be
 * unverified (`quietUnverified`: the user opted in), one whose files do not match its sums refused.
 * Missing models are said to be missing.
 */
export function describeModel(id: string, dirs: string[], quietUnverified = false): string {
  const served = teiServer(id);
  if (served) return `${id} (served by text-embeddings-inference at ${withoutCredentials(served)})`;
  const vllm = vllmServer(id);
  if (vllm) return `${id} (${vllm.model} served by vLLM at ${withoutCredentials(vllm.url)})`;
  let localDir: string | undefined;
  try {
    localDir = resolveModel(id, { modelsDirs: dirs, allowDownloads: false }).localDir;
  } catch {
    // `npm run models` installs the default embedder and Citeflow's own models; nothing else.
    const installs = id === DEFAULT_MODELS.embedder || id.startsWith("citeflow/");
    return installs
      ? `${id} (not installed: run \`npm run models\`)`
      : `${id} (not installed, and \`npm run models\` does not install it: put it under a folder in $CITEFLOW_MODELS, or allow downloads with CITEFLOW_ALLOW_DOWNLOADS=1)`;
  }
  let note: string;
  try {
    // Whether its files are verified, and whether its claim verdicts are calibrated (calibration.json, checked too).
    note = localDir ? verificationNote(join(localDir, id), quietUnverified) + calibrationNote(join(localDir, id)) : "";
  } catch (e) {
    if (e instanceof ModelIntegrityError) return `${id} (refused: ${e.message})`;
    throw e;
  }
  const card = modelCardPath(id, dirs);
  return card ? `${id} (trained by Citeflow; card: ${card}${note})` : note ? `${id} (${note.slice(2)})` : id;
}
