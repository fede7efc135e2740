/** A cached node result: output values and their content hashes, by port. */
export interface CacheEntry {
  nodeType: string;
  version: number;
  outputs: Record<string, unknown>;
  hashes: Record<string, string>;
  /** The models that made the outputs. */
  models?: string[];
  /** What looked wrong in them (`warnings.ts`), with what only the run that made them saw. */
  warnings?: string[];
  /** Each output's canonical JSON, by port, when whoever stores the entry has it (the executor, which hashed it): not written out twice. */
  texts?: Record<string, string>;
}

/**
 * Where node results are kept between runs. The key is the content hash of
 * (type, version, canonical params, input hashes, graph input hash), so any change upstream
 * or in the node itself misses. The run store implements this on disk.
 */
export interface CacheStore {
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry): Promise<void>;
  /** Explicit invalidation of one entry. */
  delete(key: string): Promise<void>;
}

export class MemoryCache implements CacheStore {
  readonly entries = new Map<string, CacheEntry>();
  async get(key: string) {
    return this.entries.get(key);
  }
  async set(key: string, entry: CacheEntry) {
    const { texts: _texts, ...kept } = entry;
    this.entries.set(key, kept);
  }
  async delete(key: string) {
    this.entries.delete(key);
  }
}
