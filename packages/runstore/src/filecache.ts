import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CacheEntry, CacheStore } from "@citeflow/core";
import type { BlobStore } from "./blobs.js";
import { readRegularFile, writeFileAtomic } from "./fsutil.js";

interface IndexEntry {
  nodeType: string;
  version: number;
  hashes: Record<string, string>;
  models?: string[];
  warnings?: string[];
  at: number;
}

/** The executor's cache on disk: cache/<k0k1>/<key>.json points at output blobs. */
export class FileCache implements CacheStore {
  constructor(
    readonly dir: string,
    private readonly blobs: BlobStore,
  ) {}

  #path(key: string) {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`"${key}" is not a cache key`);
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const path = this.#path(key);
    if (!existsSync(path)) return undefined;
    let entry: IndexEntry;
    try {
      entry = JSON.parse(readRegularFile(path)) as IndexEntry;
    } catch {
      return undefined; // unreadable entry: treat as a miss, it will be rewritten
    }
    const outputs: Record<string, unknown> = {};
    for (const [port, hash] of Object.entries(entry.hashes)) {
      if (!this.blobs.has(hash)) return undefined;
      outputs[port] = this.blobs.get(hash);
    }
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((m): m is string => typeof m === "string") : undefined);
    const [models, warnings] = [strings(entry.models), strings(entry.warnings)];
    return { nodeType: entry.nodeType, version: entry.version, outputs, hashes: entry.hashes, ...(models?.length ? { models } : {}), ...(warnings ? { warnings } : {}) };
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    // Blobs first, then the index entry: a crash in between leaves a miss, never a broken hit.
    for (const [port, value] of Object.entries(entry.outputs)) this.blobs.put(value, entry.hashes[port], entry.texts?.[port]);
    const index: IndexEntry = {
      nodeType: entry.nodeType,
      version: entry.version,
      hashes: entry.hashes,
      ...(entry.models ? { models: entry.models } : {}),
      ...(entry.warnings ? { warnings: entry.warnings } : {}),
      at: Date.now(),
    };
    // A `cache clear` in another process may move the folder away between this write's file and
    // its rename (ENOENT): the entry is written again, into the fresh folder. Clears that keep
    // coming win: the entry is left out (the run keeps its outputs; the cache only forgets them).
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        writeFileAtomic(this.#path(key), JSON.stringify(index), dirname(this.dir));
        return;
      } catch (e) {
        if ((e as { cause?: NodeJS.ErrnoException }).cause?.code !== "ENOENT") throw e;
      }
    }
  }

  async delete(key: string): Promise<void> {
    rmSync(this.#path(key), { force: true });
  }

  /** Remove every entry (explicit invalidation of the whole cache). Returns how many were removed. */
  clear(): number {
    if (!existsSync(this.dir)) return 0;
    // Moved aside in one rename, then removed: a run writing entries meanwhile starts a fresh
    // folder instead of making the removal fail (ENOTEMPTY).
    const aside = `${this.dir}.${process.pid}.${Date.now()}.clearing`;
    renameSync(this.dir, aside);
    let n = 0;
    for (const sub of readdirSafe(aside)) n += readdirSafe(join(aside, sub)).length;
    rmSync(aside, { recursive: true, force: true, maxRetries: 3 });
    return n;
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
