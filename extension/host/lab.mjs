#!/usr/bin/env node
// `npm run lab`: JupyterLab 4.5 (built from npm packages in ./build) served by Debian's
// jupyter_server on 127.0.0.1 with a token, the Citeflow kernel registered, the prebuilt Citeflow
// extension installed the way pip installs it (a labextensions folder on $JUPYTER_PATH), the
// notebooks folder open, and the SciFact store ready when $CITEFLOW_DATA is set.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const python = process.env.CITEFLOW_PYTHON || "/usr/bin/python3";

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

/** Jupyter folders for this lab: the kernelspec and the prebuilt extension, as an install would place them. */
async function prepare(state) {
  const share = join(state, "share", "jupyter");
  const { installKernelspec } = await import(join(root, "kernel", "dist", "kernelspec.js"));
  installKernelspec({ prefix: state });
  const ext = join(share, "labextensions", "@citeflow", "jupyterlab");
  mkdirSync(dirname(ext), { recursive: true });
  rmSync(ext, { recursive: true, force: true });
  symlinkSync(join(root, "extension", "labextension"), ext, "dir");
  for (const d of ["config", "data", "runtime", "app-settings"]) mkdirSync(join(state, d), { recursive: true });
  // No news or update checks: this machine, like many lab machines, has no route to the internet.
  const overrides = { "@jupyterlab/apputils-extension:notification": { fetchNews: "false", checkForUpdates: false } };
  writeFileSync(join(state, "app-settings", "overrides.json"), JSON.stringify(overrides, null, 2));
  return share;
}

/**
 * Starts the server; resolves once it answers. `stop()` shuts its kernels down first (kernels do
 * not die with their server), then the server.
 */
export async function startLab(options = {}) {
  const state = resolve(options.state ?? join(root, ".citeflow", "lab"));
  const port = options.port || (await freePort());
  const token = options.token ?? randomBytes(24).toString("hex");
  const notebookDir = resolve(options.root ?? join(root, "notebooks"));
  const share = await prepare(state);
  const env = {
    ...process.env,
    ...options.env,
    JUPYTER_PATH: share,
    JUPYTER_CONFIG_DIR: join(state, "config"),
    JUPYTER_DATA_DIR: join(state, "data"),
    JUPYTER_RUNTIME_DIR: join(state, "runtime"),
    CITEFLOW_LAB_STATE: state,
  };
  const args = [
    join(here, "citeflow_lab.py"),
    "--ServerApp.ip=127.0.0.1",
    `--ServerApp.port=${port}`,
    "--ServerApp.port_retries=0",
    `--ServerApp.token=${token}`,
    `--ServerApp.root_dir=${notebookDir}`,
    "--ServerApp.open_browser=False",
    "--MappingKernelManager.default_kernel_name=citeflow",
    ...(process.getuid?.() === 0 ? ["--allow-root"] : []),
  ];
  const server = spawn(python, args, { env, stdio: ["ignore", options.quiet ? "ignore" : "inherit", options.log ?? (options.quiet ? "ignore" : "inherit")] });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise((ok) => server.once("exit", (code, signal) => ok({ code, signal })));
  const api = (path, init = {}) => fetch(`${base}${path}`, { ...init, headers: { Authorization: `token ${token}`, ...init.headers } });
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`the Jupyter server exited (code ${server.exitCode}); is python3-jupyterlab-server installed? (${python})`);
    try {
      if ((await api("/api/status")).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error(`the Jupyter server did not answer on ${base} within 60 s`);
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
  return { url: `${base}/lab?token=${token}`, base, token, port, state, api, stop, exited };
}

/** Offline models and the SciFact store, when the data is there (as the notebooks do). */
async function sciFact(state) {
  const citeflow = await import(join(root, "packages", "citeflow", "dist", "index.js"));
  citeflow.useOfflineModels();
  process.env.CITEFLOW_RUNS ||= join(state, "runs");
  if (!process.env.CITEFLOW_STORE && process.env.CITEFLOW_DATA) {
    process.stderr.write("citeflow lab: preparing the SciFact store (first time: about 30 s)…\n");
    await citeflow.sciFactStore({ runs: process.env.CITEFLOW_RUNS });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const state = resolve(arg("--state") ?? join(root, ".citeflow", "lab"));
  await sciFact(state);
  const lab = await startLab({ state, port: Number(arg("--port") ?? 0), token: arg("--token"), root: arg("--root") });
  console.log(`\n    Citeflow JupyterLab is running:\n\n    ${lab.url}\n\n    (Ctrl+C stops it and its kernels)\n`);
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => void lab.stop().then(() => process.exit(0)));
  const { code } = await lab.exited;
  process.exit(code ?? 0);
}
