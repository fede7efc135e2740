// The CLI as the question-set benchmarks start it: `--import USAGE` first loads a hook that samples the process's
// resident memory and V8's heap every half second, and writes them, its peak resident memory (KiB) and the CPU time it
// used (µs) to stderr as it exits; `usage` reads them back.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "dist", "bin.js");

const hook = `import { writeSync } from "node:fs";
const samples = [];
setInterval(() => { const m = process.memoryUsage(); samples.push([m.rss, m.heapTotal]); }, 500).unref();
process.on("exit", () => {
  const u = process.resourceUsage();
  writeSync(2, \`peak rss \${u.maxRSS}\\ncpu \${u.userCPUTime + u.systemCPUTime}\\nmemory samples \${JSON.stringify(samples)}\\n\`);
});`;
export const USAGE = `data:text/javascript,${encodeURIComponent(hook)}`;

/**
 * The CLI's peak RSS (MiB), CPU seconds, and its memory over its run by tenths of the run's time: resident (MiB) and
 * V8's heap (MiB) at the end of each tenth.
 */
export function usage(stderr) {
  const samples = JSON.parse(/^memory samples (.*)$/m.exec(stderr)?.[1] ?? "[]");
  const tenth = (i) => samples[Math.max(0, Math.ceil(((i + 1) * samples.length) / 10) - 1)] ?? [Number.NaN, Number.NaN];
  const tenths = Array.from({ length: 10 }, (_, i) => tenth(i).map((b) => b / 2 ** 20));
  return { peakMiB: Number(/^peak rss (\d+)$/m.exec(stderr)?.[1]) / 1024, cpuSeconds: Number(/^cpu (\d+)$/m.exec(stderr)?.[1]) / 1e6, tenths };
}
