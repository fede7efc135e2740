import { closeSync, constants, existsSync, fstatSync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Every file Citeflow writes from outside data (runs, blobs, corrections, exports, downloads) goes
 * through here, so these rules hold everywhere:
 *
 * - a write is whole or not at all: short writes are retried until every byte is down, and a write
 *   that fails (a full disk, a file-size limit) removes its temp file, keeps the previous file and
 *   says which file could not be written and why;
 * - no write goes through a symbolic link Citeflow did not make: below the folder a write belongs to
 *   (a store, an export folder), a linked folder or file is refused by name;
 * - a name built from outside data (a server's attachment key, an id) stays inside its folder;
 * - what Citeflow reads from a store or a graph's prompt is a regular file: a FIFO or a device
 *   there would block a run, `runs list` or an export for ever.
 */
const TEMP = /\.\d+\.[a-z0-9]+\.tmp$/;

export class WriteError extends Error {
  constructor(path: string, e: unknown) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === "ENOSPC"
        ? "the disk is full"
        : code === "EFBIG"
          ? "the file-size limit was reached"
          : code === "EDQUOT"
            ? "the disk quota is used up"
            : code === "EROFS"
              ? "the file system is read-only"
              : code === "EACCES" || code === "EPERM"
                ? "permission denied"
                : (e as Error).message;
    super(`could not write ${path}: ${why}; nothing was changed there`, { cause: e });
  }
}

/** `name` joined to `folder`, refused when it would land outside it (`../x`, an absolute path). */
export function inside(folder: string, name: string): string {
  const path = resolve(folder, name);
  const rel = relative(resolve(folder), path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new Error(`"${name}" would be written outside ${folder}`);
  return path;
}

/** Refuses a symbolic link at `path` or at any folder between `root` and it (`root` itself may be one: the user chose it). */
export function refuseLinks(root: string, path: string): void {
  const rel = relative(resolve(root), resolve(path));
  if (rel.startsWith("..")) throw new Error(`${path} is outside ${root}`);
  let at = resolve(root);
  for (const part of rel.split(sep).filter(Boolean)) {
    at = join(at, part);
    const stat = lstatSync(at, { throwIfNoEntry: false });
    if (!stat) return; // does not exist yet: nothing below it either
    if (stat.isSymbolicLink()) throw new Error(`${at} is a symbolic link: Citeflow writes only into folders and files it made, never through a link`);
  }
}

function writeAll(fd: number, data: Buffer): void {
  for (let off = 0; off < data.length;) off += writeSync(fd, data, off, data.length - off);
}

/**
 * A file written in parts that readers see either as it was before or whole (temp file, fsync,
 * rename on `commit`; a link at `path` is replaced, never written through). A failed write removes
 * the temp file and says which file could not be written and why; so does `abort`. `root`: the
 * folder the write belongs to, checked for links below it.
 */
export class AtomicFile {
  private readonly tmp: string;
  private fd: number | undefined;

  constructor(
    readonly path: string,
    root?: string,
  ) {
    if (root) refuseLinks(root, path);
    this.tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.fd = openSync(this.tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW);
    } catch (e) {
      throw new WriteError(path, e);
    }
  }

  write(data: string | Uint8Array): void {
    if (this.fd === undefined) throw new Error(`${this.path}: written after it was committed or aborted`);
    this.guard(() => writeAll(this.fd!, typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
  }

  /** The file appears at `path`, whole. */
  commit(): void {
    if (this.fd === undefined) throw new Error(`${this.path}: committed after it was committed or aborted`);
    this.guard(() => {
      fsyncSync(this.fd!);
      closeSync(this.fd!);
      this.fd = undefined;
      renameSync(this.tmp, this.path);
    });
  }

  /** Nothing appears; the file at `path`, if any, stays as it was. */
  abort(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined)
      try {
        closeSync(fd);
      } catch {
        // already closed by a failed commit: the temp file still goes
      }
    rmSync(this.tmp, { force: true });
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (e) {
      this.abort();
      throw new WriteError(this.path, e);
    }
  }
}

/** Writes a whole file as an AtomicFile: readers see either the previous file or all of the new one. */
export function writeFileAtomic(path: string, data: string | Uint8Array, root?: string): void {
  const file = new AtomicFile(path, root);
  file.write(data);
  file.commit();
}

/**
 * Appends whole lines to a file that is never a link. A failed append (a full disk) is cut back to
 * the file's previous length, so no half line is left, and reported.
 */
export function appendLines(path: string, text: string, root?: string): void {
  if (root) refuseLinks(root, path);
  let fd: number;
  try {
    ensureDir(dirname(path));
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW);
  } catch (e) {
    if (e instanceof WriteError) throw e;
    if ((e as NodeJS.ErrnoException).code === "ELOOP") throw new Error(`${path} is a symbolic link: Citeflow appends only to files it made, never through a link`, { cause: e });
    throw new WriteError(path, e);
  }
  const before = lstatSync(path).size;
  try {
    writeAll(fd, Buffer.from(text));
  } catch (e) {
    try {
      ftruncateSync(fd, before);
    } catch {
      // the report below still stands; a reader drops a cut last line
    }
    throw new WriteError(path, e);
  } finally {
    closeSync(fd);
  }
}

/** Removes temp files a killed writer left in `dir` and its subfolders (one level). */
export function removeStaleTemps(dir: string): number {
  let removed = 0;
  const sweep = (d: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && TEMP.test(e.name) && !processAlive(Number(e.name.split(".").at(-3)))) {
        rmSync(join(d, e.name), { force: true });
        removed++;
      } else if (e.isDirectory() && depth > 0) sweep(join(d, e.name), depth - 1);
    }
  };
  sweep(dir, 1);
  return removed;
}

/** Whether a process is running (a lock's or a temp file's writer). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The most bytes of one file Citeflow reads whole, unless its reader says less (a JavaScript string holds ~512 MiB). */
export const READ_WHOLE_BYTES = 256 * 2 ** 20;

const mib = (n: number) => `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MiB`;

/**
 * A regular file's text. Opened without blocking (a FIFO's open waits for a writer), then refused
 * unless it is a regular file, naming the file and what it is, and unless it has at most `maxBytes`
 * (`what` says what such a file is, for the error).
 */
export function readRegularFile(path: string, maxBytes = READ_WHOLE_BYTES, what = "a file it reads whole"): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new Error(
        `${path} is ${st.isFIFO() ? "a FIFO" : st.isDirectory() ? "a folder" : st.isCharacterDevice() || st.isBlockDevice() ? "a device" : st.isSocket() ? "a socket" : "not a regular file"}: Citeflow reads only regular files here`,
      );
    if (st.size > maxBytes) throw new Error(`${path} is ${mib(st.size)}: Citeflow reads at most ${mib(maxBytes)} of ${what}`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

export function ensureDir(path: string): void {
  if (existsSync(path)) return;
  try {
    mkdirSync(path, { recursive: true });
  } catch (e) {
    // A read-only file system can report ENOENT for a folder it will not make.
    throw new WriteError(path, (e as NodeJS.ErrnoException).code === "ENOENT" && existsSync(dirname(path)) ? Object.assign(new Error("read-only"), { code: "EROFS" }) : e);
  }
}
