// Installs and builds what is missing, so `npm test` and `npm run demo` work on a fresh clone.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { labextensionBuilt, mtime, needFree, newest } from "./mtimes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: "inherit" });

const marker = join(root, "node_modules", ".package-lock.json");
if (!existsSync(marker) || mtime(join(root, "package-lock.json")) > mtime(marker)) {
  needFree(root, 2, "installing the dependencies");
  console.error("citeflow: installing dependencies (npm ci: about 1,200 packages, 1.4 GB, about a minute the first time)…");
  run("npm", ["ci", "--no-audit", "--no-fund"]);
}
// tsc -b is incremental: a no-op when nothing changed.
if (!existsSync(join(root, "packages", "cli", "dist", "bin.js"))) console.error("citeflow: building the packages (tsc -b, about 10 s the first time)…");
run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b"]);

// The JupyterLab extension (prebuilt, federated), when stale. Its build federates with the pinned
// JupyterLab, which scripts/lab-env.mjs installs from pip into .citeflow/venvs/ the first time.
const ext = join(root, "extension");
// Its inputs: its own sources, core's (browser) sources and the templates it bundles from @citeflow/nodes.
const extInputs = Math.max(
  newest(join(ext, "src")),
  newest(join(ext, "style")),
  newest(join(ext, "schema")),
  mtime(join(ext, "package.json")),
  newest(join(root, "packages", "core", "src")),
  newest(join(root, "packages", "nodes", "templates")),
);
if (!labextensionBuilt(join(ext, "labextension")) || mtime(join(ext, "labextension", "package.json")) < extInputs) {
  console.error(`citeflow: building the JupyterLab extension${existsSync(join(ext, "labextension")) && !labextensionBuilt(join(ext, "labextension")) ? " (the last build was cut short)" : ""}…`);
  run("npm", ["run", "build", "--silent", "-w", "@citeflow/jupyterlab"]);
}
// The pretrained models (Gemma 3 270M GGUF, all-MiniLM-L6-v2 ONNX): a no-op when installed.
run(process.execPath, [join(root, "scripts", "models.mjs")]);

// The benchmarks' peers (LangChain.js) live in bench/, installed apart from the product.
if (process.argv.includes("--bench")) {
  const bench = join(root, "bench");
  const benchMarker = join(bench, "node_modules", ".package-lock.json");
  if (!existsSync(benchMarker) || mtime(join(bench, "package-lock.json")) > mtime(benchMarker)) {
    console.error("citeflow: installing the benchmark peers (bench/, npm ci)…");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: bench, stdio: "inherit" });
  }
}
