import { closeSync, constants, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { indexingProgress } from "@citeflow/core";
import { processAlive } from "@citeflow/runstore";

/** The lock an ingest holds while it writes a store. */
const lockPath = (dir: string) => join(dir, "ingest.lock");

/** How far the lock holder has got: documents read, of how many when it knows. */
type Progress = { documents: number; total?: number | undefined };

/**
 * One writer per store: an ingest holds `<store>/ingest.lock` (its pid and start time) while it
 * writes. A second ingest of the same store is refused with a message naming the first; a lock
 * whose process is gone (killed) is taken over. `work` gets `record`, which writes its progress into
 * the lock (beside it, then renamed over it: a reader sees the old state or the new, never half).
 */
export async function withIngestLock<T>(dir: string, work: (record: (p: Progress) => void) => Promise<T>): Promise<T> {
  const path = lockPath(dir);
  const startedAt = new Date().toISOString();
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW);
      writeSync(fd, JSON.stringify({ pid: process.pid, startedAt }));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
      const holder = readHolder(path);
      if (holder && processAlive(holder.pid))
        throw new Error(`store ${dir} is being written by another ingest (process ${holder.pid}, started ${holder.startedAt}): wait for it to finish, or stop it and ingest again (it resumes)`, {
          cause: e,
        });
      rmSync(path, { force: true }); // left by a killed ingest
    }
  }
  const next = `${path}.${process.pid}.tmp`;
  const record = (p: Progress) => {
    writeFileSync(next, JSON.stringify({ pid: process.pid, startedAt, ...p, updatedAt: new Date().toISOString() }));
    renameSync(next, path);
  };
  try {
    return await work(record);
  } finally {
    rmSync(path, { force: true });
  }
}

/** What the ingest holding a store's lock says of itself: its process, since when, and how far it has got. */
export interface IngestState {
  pid: number;
  startedAt: string;
  /** Documents read so far, and how many there are when the ingest was told (`expectedDocuments`). */
  documents?: number;
  total?: number;
  updatedAt?: string;
}

function readHolder(path: string): IngestState | undefined {
  try {
    const h = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    if (typeof h.pid !== "number") return undefined;
    const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined);
    const [documents, total] = [n(h.documents), n(h.total)];
    return {
      pid: h.pid,
      startedAt: String(h.startedAt),
      ...(documents !== undefined ? { documents } : {}),
      ...(total !== undefined ? { total } : {}),
      ...(typeof h.updatedAt === "string" ? { updatedAt: h.updatedAt } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The ingest writing this store now, with its progress; undefined when none is (no lock, or its process is gone). */
export function ingestInProgress(dir: string): IngestState | undefined {
  const holder = readHolder(lockPath(dir));
  return holder && processAlive(holder.pid) ? holder : undefined;
}

/**
 * Why a store whose last ingest did not finish cannot be searched yet, in words: the ingest writing it now and how far
 * it is (with a rate and what is left, from its start), or that none is and running it again resumes it.
 */
export function unfinishedStoreMessage(dir: string, now = Date.now()): string {
  if (!existsSync(dir)) return `store ${dir} is not finished: its last ingest is still running, or stopped before the end (run it again: it resumes)`;
  const writing = ingestInProgress(dir);
  if (!writing) return `store ${dir} is not finished: its last ingest stopped before the end. Run the same ingest again (it resumes where it stopped), then search`;
  const progress = indexingProgress(writing, now).text;
  return `store ${dir} is still being indexed (process ${writing.pid}, started ${writing.startedAt}${progress ? `: ${progress}` : ""}); it can be searched when that ingest finishes`;
}
