// Modification times for the scripts' "is it stale?" checks, and the free-space check before a download.
import { existsSync, readFileSync, readdirSync, statSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { join } from "node:path";

/** A file's modification time in ms, 0 when it does not exist. */
export const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

/** The newest modification time of any file under `dir`. */
export function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) t = Math.max(t, mtime(join(e.parentPath ?? e.path, e.name)));
  return t;
}

/**
 * Stops with a clear message when the disk holding `dir` has less than `gb` GB free: a download
 * or an install that runs out of space half way leaves a broken tree and an unhelpful error.
 */
export function needFree(dir, gb, what) {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  const s = statfsSync(at);
  const free = (s.bavail * s.bsize) / 1e9;
  if (free < gb) {
    console.error(
      `citeflow: ${what} needs about ${gb} GB free in ${at}; ${free.toFixed(1)} GB is free. Free some space (or point $CITEFLOW_MODELS_HOME / $XDG_CACHE_HOME elsewhere) and run the command again.`,
    );
    process.exit(1);
  }
}

/**
 * Whether a built labextension folder is whole: JupyterLab's builder writes the `_build` entry of
 * its package.json, naming the remote entry, only at the end, so a build cut short (only
 * static/style.js, say) is not taken for a finished one. The one check for `ensure` and `npm run lab`.
 */
export function labextensionBuilt(dir) {
  try {
    const load = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).jupyterlab?._build?.load;
    return typeof load === "string" && existsSync(join(dir, load));
  } catch {
    return false;
  }
}
