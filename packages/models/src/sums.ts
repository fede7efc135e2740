import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Models are checked where they load: a model's files against the `SHA256SUMS` beside them (the
 * file `citeflow train` and `npm run models` write: `<sha256>  <path>` a line, paths relative to
 * its folder). A file that does not match is refused; a model whose folder has no sums loads, and
 * the run's first lines say it is unverified.
 */

export const SUMS_FILE = "SHA256SUMS";

export class ModelIntegrityError extends Error {
  override name = "ModelIntegrityError";
}

/** What the check found: every file the load reads matches its sum, or the folder has no sums for it. */
export type Verification = "verified" | "unverified";

/** A folder's sums (path → sha256), or undefined when it has no SHA256SUMS. A line that is not `<64 hex>  <path>` is refused by file and line. */
export function readSums(folder: string): Map<string, string> | undefined {
  const file = join(folder, SUMS_FILE);
  if (!existsSync(file)) return undefined;
  const sums = new Map<string, string>();
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() === "") return;
      const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trimEnd());
      if (!m) throw new ModelIntegrityError(`${file}:${i + 1}: not a sha256sum line ("<64 hex digits>  <file>")`);
      sums.set(m[2]!.replace(/^\.\//, ""), m[1]!);
    });
  return sums;
}

const hashed = new Map<string, string>();

/** sha256 of a file, read in 1 MiB pieces; remembered by the file's identity (device, inode, size, times), so a file is read once a process. */
export function fileSha256(path: string): string {
  const abs = resolve(path);
  const st = statSync(abs);
  const key = [abs, st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs].join("\0");
  const known = hashed.get(key);
  if (known) return known;
  const hash = createHash("sha256");
  const buf = Buffer.alloc(1 << 20);
  const fd = openSync(abs, "r");
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  const sum = hash.digest("hex");
  hashed.set(key, sum);
  return sum;
}

/**
 * Checks the files a load reads (those of `files` that exist) against the sums of `folder`.
 * `folder` is one model's (`whole`: an ONNX model folder, an adapter's): with sums there, a file it
 * reads that the sums leave out is refused — a file added beside a verified model is not part of
 * it. A folder of many models (a GGUF among others) vouches only for the files it lists.
 */
export function verifyModelFiles(folder: string, files: string[], whole: boolean): Verification {
  const sums = readSums(folder);
  if (!sums) return "unverified";
  let checked = 0;
  for (const file of files) {
    const path = join(folder, file);
    if (!existsSync(path)) continue;
    const rel = relative(folder, path).split(sep).join("/");
    const expected = sums.get(rel);
    if (expected === undefined) {
      if (whole)
        throw new ModelIntegrityError(`${path} is not in ${join(folder, SUMS_FILE)}: a file added to a verified model is refused (remove it, or write the folder's sums again if you made it)`);
      continue;
    }
    const actual = fileSha256(path);
    if (actual !== expected)
      throw new ModelIntegrityError(
        `${path} does not match ${join(folder, SUMS_FILE)} (expected ${expected}, got ${actual}): the model was changed or damaged after it was made; reinstall it (npm run models) or retrain it`,
      );
    checked++;
  }
  return checked > 0 ? "verified" : "unverified";
}

/** The files transformers.js reads of an ONNX model folder (Hugging Face layout). */
export const ONNX_MODEL_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx", "onnx/model_quantized.onnx"];

/** A small file of a model's (its JSON, its calibration): refused unread when it is not a regular file or over `maxBytes`. */
export function readSmallFile(path: string, maxBytes: number): string {
  const st = statSync(path);
  if (!st.isFile() || st.size > maxBytes)
    throw new ModelIntegrityError(`${path}: ${st.isFile() ? `over ${maxBytes} bytes` : "not a regular file"}; a model's own files of this kind are small regular files`);
  return readFileSync(path, "utf8");
}

/**
 * A local ONNX model's JSON files, read before transformers.js reads them, so a damaged one is named: each that
 * exists must parse to an object, and a tokenizer.json must hold its tokenizer's `model`.
 */
export function checkModelJson(folder: string): void {
  for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json"]) {
    const path = join(folder, file);
    if (!existsSync(path)) continue;
    const text = readSmallFile(path, 256 * 2 ** 20);
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new ModelIntegrityError(`${path}: not JSON (${(e as Error).message}); reinstall the model (npm run models) or retrain it`, { cause: e });
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ModelIntegrityError(`${path}: not a JSON object; reinstall the model (npm run models) or retrain it`);
    if (file === "tokenizer.json" && typeof (v as { model?: unknown }).model !== "object")
      throw new ModelIntegrityError(`${path}: holds no tokenizer (no "model" in it); reinstall the model (npm run models) or retrain it`);
  }
}

/** A single-file model (a GGUF, an adapter): checked against the SHA256SUMS of its own folder. */
export function verifyModelFile(path: string, whole: boolean): Verification {
  const abs = resolve(path);
  return verifyModelFiles(dirname(abs), [relative(dirname(abs), abs)], whole);
}
