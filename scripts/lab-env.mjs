// The real JupyterLab, from the Python registry, in a virtual environment of the project's state
// folder (.citeflow/venvs/jupyterlab-<version>), with the Citeflow wheel installed into it as a
// user's `pip install citeflow-jupyterlab` would. Used by `npm run lab`, the extension's build
// (JupyterLab's staging folder is the core its federated modules are built against) and the e2e.
//
//   node scripts/lab-env.mjs core-path   prints the pinned JupyterLab's staging folder
//   node scripts/lab-env.mjs wheel       builds the wheel and prints its path
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { labextensionBuilt, mtime, newest } from "./mtimes.mjs";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The JupyterLab the extension is built against and `npm run lab` serves (its npm packages are 4.5.10 too). */
export const JUPYTERLAB = "4.5.10";
/** The newest JupyterLab 4 the registry had when last checked: the high end of the supported range, tested too. */
export const JUPYTERLAB_NEWEST = "4.6.6";
/** What the wheel's build needs, pinned, installed beside JupyterLab so builds run offline from the venv. */
const BUILD_TOOLS = ["hatchling==1.28.0", "hatch-jupyter-builder==0.10.0"];
const ext = join(root, "extension");

const log = (s) => process.stderr.write(`citeflow lab: ${s}\n`);

export const venvDir = (version = JUPYTERLAB) => join(root, ".citeflow", "venvs", `jupyterlab-${version}`);
export const bin = (venv, name) => join(venv, "bin", name);

/** Creates the venv with `jupyterlab==version` once; a venv that does not run is made again. */
export function ensureVenv(version = JUPYTERLAB, { venv = venvDir(version), python = process.env.CITEFLOW_PYTHON || "python3" } = {}) {
  const ready = join(venv, ".citeflow-ready");
  if (existsSync(ready)) return venv;
  rmSync(venv, { recursive: true, force: true });
  log(`installing JupyterLab ${version} into ${venv} (once)…`);
  try {
    execFileSync(python, ["-m", "venv", venv], { stdio: ["ignore", "ignore", "inherit"] });
  } catch (e) {
    throw new Error(`cannot create a virtual environment with ${python} (${e.message}); on Debian install python3-venv`, { cause: e });
  }
  pip(venv, ["install", "--quiet", "--disable-pip-version-check", `jupyterlab==${version}`, ...BUILD_TOOLS]);
  execFileSync(bin(venv, "python"), ["-c", `open(${JSON.stringify(ready)}, "w").write("${version}\\n")`]);
  return venv;
}

function pip(venv, args) {
  execFileSync(bin(venv, "python"), ["-m", "pip", ...args], { stdio: ["ignore", "inherit", "inherit"] });
}

/** JupyterLab's staging folder in the venv: the core package whose shared modules the extension federates with. */
export function corePath(venv = ensureVenv()) {
  return execFileSync(bin(venv, "python"), ["-c", "import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), 'staging'))"], { encoding: "utf8" }).trim();
}

const wheelInputs = () =>
  Math.max(
    mtime(join(ext, "labextension", "package.json")),
    newest(join(ext, "citeflow_jupyterlab")),
    newest(join(ext, "kernelspec")),
    newest(join(ext, "jupyter-config")),
    mtime(join(ext, "pyproject.toml")),
    mtime(join(ext, "install.json")),
  );

/** Builds `extension/dist/citeflow_jupyterlab-*.whl` from the built labextension when stale; its path. */
export function buildWheel(venv = ensureVenv()) {
  const dist = join(ext, "dist");
  const found = () => (existsSync(dist) ? readdirSync(dist).filter((f) => /^citeflow_jupyterlab-.*\.whl$/.test(f)) : []);
  if (!labextensionBuilt(join(ext, "labextension"))) throw new Error("the labextension is not built, or its build was cut short (no remote entry): run `npm run build -w @citeflow/jupyterlab`");
  const [current] = found();
  if (current && mtime(join(dist, current)) >= wheelInputs()) return join(dist, current);
  rmSync(dist, { recursive: true, force: true });
  log("building the citeflow-jupyterlab wheel…");
  pip(venv, ["wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "--wheel-dir", dist, ext]);
  const [built] = found();
  if (!built) throw new Error(`pip wheel wrote no citeflow_jupyterlab wheel to ${dist}`);
  return join(dist, built);
}

/** Installs the wheel into the venv unless that exact wheel is already there. */
export function installWheel(venv, wheel) {
  const stamp = join(venv, ".citeflow-wheel");
  if (mtime(stamp) >= mtime(wheel)) return;
  pip(venv, ["install", "--quiet", "--disable-pip-version-check", "--no-deps", "--force-reinstall", wheel]);
  execFileSync(bin(venv, "python"), ["-c", `open(${JSON.stringify(stamp)}, "w").write(${JSON.stringify(wheel)})`]);
}

/** The venv of `version` with the current Citeflow wheel in it. */
export function labEnv(version = JUPYTERLAB) {
  const venv = ensureVenv(version);
  installWheel(venv, buildWheel(ensureVenv()));
  return venv;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const what = process.argv[2];
  if (what === "core-path") process.stdout.write(`${corePath()}\n`);
  else if (what === "wheel") process.stdout.write(`${buildWheel()}\n`);
  else {
    process.stderr.write("usage: node scripts/lab-env.mjs core-path | wheel\n");
    process.exit(2);
  }
}
