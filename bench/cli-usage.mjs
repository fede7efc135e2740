// The CLI as the question-set benchmarks start it: `--import USAGE` first loads a hook that writes the
// process's peak resident memory (KiB) and the CPU time it used (µs) to stderr as it exits; `usage`
// reads them back.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "dist", "bin.js");

export const USAGE = `data:text/javascript,${encodeURIComponent(
  'import { writeSync } from "node:fs"; process.on("exit", () => { const u = process.resourceUsage(); writeSync(2, `peak rss ${u.maxRSS}\\ncpu ${u.userCPUTime + u.systemCPUTime}\\n`); });',
)}`;

/** The CLI's peak RSS (MiB) and CPU seconds, from its stderr. */
export function usage(stderr) {
  return { peakMiB: Number(/^peak rss (\d+)$/m.exec(stderr)?.[1]) / 1024, cpuSeconds: Number(/^cpu (\d+)$/m.exec(stderr)?.[1]) / 1e6 };
}
