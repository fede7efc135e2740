#!/usr/bin/env node
// `npm run lab`: the real JupyterLab (pip, pinned, in .citeflow/venvs/) with the citeflow-jupyterlab
// wheel installed into it, served on 127.0.0.1 with a token. The wheel brings the prebuilt
// extension and the kernelspec; the kernel it starts is this checkout's CLI. The notebooks folder
// is open. The SciFact store (from $CITEFLOW_DATA, else the SciFact shipped in data/) is built after the page is
// served, with its progress in this terminal; a search before it is ready says how far it is.
//
//   npm run lab -- [--port N] [--token T] [--root DIR] [--state DIR] [--jupyterlab VERSION]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bin, JUPYTERLAB, labEnv, root } from "./lab-env.mjs";

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

// The notebooks this checkout ships are tracked by git: the server saves them without outputs (a run
// in JupyterLab would otherwise autosave thousands of lines of them into the checkout). Other files,
// and copies of these under other names, keep their outputs.
const STRIP_SHIPPED = `import os, json

_shipped = set(json.loads(os.environ.get("CITEFLOW_SHIPPED_NOTEBOOKS", "[]")))

def _strip_shipped(model, path, contents_manager, **kwargs):
    if model.get("type") != "notebook" or os.path.join(contents_manager.root_dir, path.strip("/")) not in _shipped:
        return
    for cell in model["content"].get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None

c.FileContentsManager.pre_save_hook = _strip_shipped
`;

/** The shipped notebooks in `dir` (tracked files of this checkout, by absolute path). */
function shippedNotebooks(dir) {
  if (resolve(dir) !== join(root, "notebooks")) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ipynb"))
    .map((f) => join(dir, f));
}

/** User settings of this lab's state folder: no news or update checks (lab machines often have no route out). */
function userSettings(state) {
  const dir = join(state, "user-settings");
  const notification = join(dir, "@jupyterlab", "apputils-extension");
  mkdirSync(notification, { recursive: true });
  writeFileSync(join(notification, "notification.jupyterlab-settings"), JSON.stringify({ fetchNews: "false", checkForUpdates: false }, null, 2));
  return dir;
}

/**
 * Starts `jupyter lab` from the venv of `options.jupyterlab` (default: the pinned version) and
 * resolves once it answers. `stop()` shuts its kernels down first (kernels do not die with their
 * server), then the server. `options.venv` serves another venv's JupyterLab as it is (the wheel
 * already installed); `options.exposeApp` puts `window.jupyterapp` on the page, for tests; `options.shippedNotebooks`:
 * the notebooks saved without outputs (default: this checkout's notebooks/*.ipynb when the root is that folder).
 */
export async function startLab(options = {}) {
  const venv = options.venv ?? labEnv(options.jupyterlab ?? JUPYTERLAB);
  const state = resolve(options.state ?? join(root, ".citeflow", "lab"));
  const port = options.port || (await freePort());
  const token = options.token ?? randomBytes(24).toString("hex");
  const notebookDir = resolve(options.root ?? join(root, "notebooks"));
  for (const d of ["config", "data", "runtime", "workspaces"]) mkdirSync(join(state, d), { recursive: true });
  writeFileSync(join(state, "config", "jupyter_server_config.py"), STRIP_SHIPPED);
  const env = {
    ...process.env,
    // The wheel's kernelspec runs `citeflow kernel start`: this checkout's CLI, on this Node.
    CITEFLOW_CLI: join(root, "packages", "cli", "bin", "citeflow.js"),
    CITEFLOW_NODE: process.execPath,
    ...options.env,
    CITEFLOW_SHIPPED_NOTEBOOKS: JSON.stringify(options.shippedNotebooks ?? shippedNotebooks(notebookDir)),
    JUPYTER_CONFIG_DIR: join(state, "config"),
    JUPYTER_DATA_DIR: join(state, "data"),
    JUPYTER_RUNTIME_DIR: join(state, "runtime"),
    JUPYTERLAB_SETTINGS_DIR: userSettings(state),
    JUPYTERLAB_WORKSPACES_DIR: join(state, "workspaces"),
  };
  const args = [
    "lab",
    "--ServerApp.ip=127.0.0.1",
    `--ServerApp.port=${port}`,
    "--ServerApp.port_retries=0",
    `--IdentityProvider.token=${token}`,
    `--ServerApp.root_dir=${notebookDir}`,
    "--ServerApp.open_browser=False",
    "--MappingKernelManager.default_kernel_name=citeflow",
    ...(options.exposeApp ? ["--LabApp.expose_app_in_browser=True"] : []),
    ...(process.getuid?.() === 0 ? ["--allow-root"] : []),
  ];
  const quiet = options.quiet ? "ignore" : "inherit";
  const server = spawn(bin(venv, "jupyter"), args, { env, stdio: ["ignore", quiet, options.log ?? quiet] });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise((ok) => server.once("exit", (code, signal) => ok({ code, signal })));
  const api = (path, init = {}) => fetch(`${base}${path}`, { ...init, headers: { Authorization: `token ${token}`, ...init.headers } });
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`jupyter lab exited (code ${server.exitCode}) before answering (${venv})`);
    try {
      if ((await api("/api/status")).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`jupyter lab did not answer on ${base} within 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const stop = async () => {
    if (server.exitCode !== null) return;
    try {
      const kernels = await (await api("/api/kernels")).json();
      await Promise.all(kernels.map((k) => api(`/api/kernels/${k.id}`, { method: "DELETE" })));
    } catch {
      // the server is already going
    }
    server.kill("SIGTERM");
    const t = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
  };
  return { url: `${base}/lab?token=${token}`, base, token, port, state, venv, api, stop, exited };
}

/**
 * Offline models and the SciFact store, when the data is there (as the notebooks do), handed to
 * JupyterLab and its kernels through their environment. The store is the one `npm run demo` builds
 * (.citeflow/stores/), so whichever runs first builds it for both. Its folder is handed over at once;
 * what is returned builds it (or resumes it, or finds it whole) once the page is served.
 */
async function sciFact(state) {
  const citeflow = await import(join(root, "packages", "citeflow", "dist", "index.js"));
  const offline = citeflow.useOfflineModels();
  if (offline.nli) process.env.CITEFLOW_NLI_MODEL = offline.nli;
  if (offline.reranker) process.env.CITEFLOW_RERANK_MODEL = offline.reranker;
  let index;
  if (!process.env.CITEFLOW_STORE && citeflow.dataFolder()) {
    const runs = process.env.CITEFLOW_RUNS || join(root, ".citeflow");
    process.env.CITEFLOW_STORE = citeflow.sciFactStoreDir(runs);
    // How JupyterLab's status bar and launcher cards name it while it is indexed.
    process.env.CITEFLOW_STORE_LABEL = "SciFact";
    index = (onProgress) => citeflow.sciFactStore({ runs, onProgress });
  }
  process.env.CITEFLOW_RUNS ||= join(state, "runs");
  return index;
}

/** Progress lines for the SciFact index: at most one every 10 s, with the rate since this start and what is left. */
function progressLines() {
  const t0 = performance.now();
  let first;
  let last = 0;
  const state = { documents: 0, total: 0 };
  const report = (documents, total) => {
    Object.assign(state, { documents, total });
    first ??= documents;
    const now = performance.now();
    if (now - last < 10_000 && documents < total) return;
    last = now;
    const rate = (documents - first) / ((now - t0) / 1000);
    const left = rate > 0 && documents < total ? `, about ${Math.max(1, Math.round((total - documents) / rate / 60))} min left` : "";
    process.stderr.write(
      `citeflow lab: indexing SciFact: ${documents.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} abstracts (${Math.floor((100 * documents) / total)} %)${rate > 0 ? `, ${rate.toFixed(0)} a second` : ""}${left}\n`,
    );
  };
  return { report, state };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const state = resolve(arg("--state") ?? join(root, ".citeflow", "lab"));
  const index = await sciFact(state);
  const lab = await startLab({ state, port: Number(arg("--port") ?? 0), token: arg("--token"), root: arg("--root"), jupyterlab: arg("--jupyterlab") });
  console.log(`\n    Citeflow in JupyterLab (${lab.venv}):\n\n    ${lab.url}\n\n    (Ctrl+C stops it and its kernels)\n`);
  const progress = progressLines();
  let indexing = false;
  for (const sig of ["SIGINT", "SIGTERM"])
    process.on(sig, () => {
      const { documents, total } = progress.state;
      if (indexing)
        process.stderr.write(
          total
            ? `citeflow lab: stopped with SciFact indexed up to ${documents.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} abstracts; npm run lab resumes from there\n`
            : "citeflow lab: stopped before SciFact's first abstracts were indexed; npm run lab starts it again\n",
        );
      void lab.stop().then(() => process.exit(0));
    });
  if (index) {
    indexing = true;
    const t0 = performance.now();
    index(progress.report).then(
      (dir) => {
        indexing = false;
        const took = progress.state.total ? ` in ${Math.round((performance.now() - t0) / 1000)} s` : "";
        process.stderr.write(`citeflow lab: SciFact is indexed${took} (${dir}): templates and notebooks can search it\n`);
      },
      (e) => {
        indexing = false;
        process.stderr.write(`citeflow lab: the SciFact store could not be built: ${e.message}\n`);
      },
    );
  }
  const { code } = await lab.exited;
  process.exit(code ?? 0);
}
