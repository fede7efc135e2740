// Modification times for the scripts' "is it stale?" checks.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** A file's modification time in ms, 0 when it does not exist. */
export const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

/** The newest modification time of any file under `dir`. */
export function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) t = Math.max(t, mtime(join(e.parentPath ?? e.path, e.name)));
  return t;
}
