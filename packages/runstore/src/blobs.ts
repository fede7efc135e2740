import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, hashText } from "@citeflow/core";
import { writeFileAtomic } from "./fsutil.js";
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

  /** Store a value under its hash (computed when not given). Returns the hash. */
  put(value: unknown, hash?: string): string {
    // With a known hash, an existing blob costs one stat: the value is not serialised again.
    if (hash !== undefined && existsSync(this.path(hash))) return hash;
    const text = canonicalJson(value);
    const h = hash ?? hashText(text);
    const path = this.path(h);
    if (!existsSync(path)) writeFileAtomic(path, this.redactor ? this.redactor.redact(text) : text);
    return h;
  }

  has(hash: string): boolean {
    return existsSync(this.path(hash));
  }

  get(hash: string): unknown {
    const path = this.path(hash);
    if (!existsSync(path)) throw new Error(`blob ${hash} is missing from ${this.dir}`);
    return JSON.parse(readFileSync(path, "utf8"));
  }
}
