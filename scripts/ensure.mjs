// Installs and builds what is missing, so `npm test` and `npm run demo` work on a fresh clone.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: "inherit" });
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

const marker = join(root, "node_modules", ".package-lock.json");
if (!existsSync(marker) || mtime(join(root, "package-lock.json")) > mtime(marker)) {
  console.error("citeflow: installing dependencies (npm ci)…");
  run("npm", ["ci", "--no-audit", "--no-fund"]);
}
// tsc -b is incremental: a no-op when nothing changed.
run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b"]);

// The benchmarks' peers (LangChain.js) live in bench/, installed apart from the product.
if (process.argv.includes("--bench")) {
  const bench = join(root, "bench");
  const benchMarker = join(bench, "node_modules", ".package-lock.json");
  if (!existsSync(benchMarker) || mtime(join(bench, "package-lock.json")) > mtime(benchMarker)) {
    console.error("citeflow: installing the benchmark peers (bench/, npm ci)…");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: bench, stdio: "inherit" });
  }
}
