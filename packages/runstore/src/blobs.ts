import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { canonicalJson, hashText } from "@citeflow/core";
import { READ_WHOLE_BYTES, readRegularFile, writeFileAtomic } from "./fsutil.js";
import type { Redactor } from "./redact.js";

/** Content-addressed JSON values: blobs/<first two hex>/<sha256>.json, written once. */
export class BlobStore {
  constructor(
    readonly dir: string,
    private readonly redactor?: Redactor,
  ) {}

  path(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`"${hash}" is not a blob hash`);
    return join(this.dir, hash.slice(0, 2), `${hash}.json`);
  }

  /** Store a value under its hash (computed when not given). Returns the hash. `canonical`: its canonical JSON, when the caller has it. */
  put(value: unknown, hash?: string, canonical?: string): string {
    // With a known hash, an existing blob costs one stat: the value is not serialised again.
    if (hash !== undefined && existsSync(this.path(hash))) return hash;
    const text = canonical ?? canonicalJson(value);
    const h = hash ?? hashText(text);
    const path = this.path(h);
    if (!existsSync(path)) {
      const stored = this.redactor ? this.redactor.redact(text) : text;
      // A redacted blob no longer hashes to its name: a marker beside it holds the hash of what
      // was written, so reads still verify it.
      if (stored !== text) writeFileAtomic(`${path}.redacted`, hashText(stored), dirname(this.dir));
      writeFileAtomic(path, stored, dirname(this.dir));
    }
    return h;
  }

  has(hash: string): boolean {
    return existsSync(this.path(hash));
  }

  /** The value, verified against its hash: a missing, changed or garbled blob is an error naming its file. */
  get(hash: string): unknown {
    const path = this.path(hash);
    if (!existsSync(path)) throw new Error(`blob ${hash} is missing from ${this.dir}`);
    const text = readRegularFile(path, READ_WHOLE_BYTES, "a run's stored value");
    const actual = hashText(text);
    if (actual !== hash && !(existsSync(`${path}.redacted`) && readRegularFile(`${path}.redacted`).trim() === actual))
      throw new Error(`blob ${path} does not match its hash: it was changed or corrupted after it was written`);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new Error(`blob ${path} is not valid JSON: ${(e as Error).message}`, { cause: e });
    }
  }
}
