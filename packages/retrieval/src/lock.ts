import { closeSync, constants, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "@citeflow/runstore";

/**
 * One writer per store: an ingest holds `<store>/ingest.lock` (its pid and start time) while it
 * writes. A second ingest of the same store is refused with a message naming the first; a lock
 * whose process is gone (killed) is taken over.
 */
export async function withIngestLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const path = join(dir, "ingest.lock");
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW);
      writeSync(fd, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
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
  try {
    return await work();
  } finally {
    rmSync(path, { force: true });
  }
}

function readHolder(path: string): { pid: number; startedAt: string } | undefined {
  try {
    const h = JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown; startedAt?: unknown };
    return typeof h.pid === "number" ? { pid: h.pid, startedAt: String(h.startedAt) } : undefined;
  } catch {
    return undefined;
  }
}
