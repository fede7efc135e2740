/**
 * The install a user does: the citeflow-jupyterlab wheel into a fresh virtual environment with the
 * newest JupyterLab 4 this project supports (the pinned one is the main e2e suite's). Checks what
 * `jupyter labextension list` and `jupyter kernelspec list` say, what the kernel's log says when
 * Node.js or the CLI is missing, and that the editor opens and runs in that JupyterLab in Chromium.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { smallSciFactStore, MODELS } from "../scifact.js";
import { openBrowser, type Browser } from "./browser.js";

const root = resolve(import.meta.dirname, "..", "..");
const shots = join(root, "test-results", "extension");
const { JUPYTERLAB, JUPYTERLAB_NEWEST, bin, buildWheel, ensureVenv, installWheel } = await import(join(root, "scripts", "lab-env.mjs"));
const { startLab } = await import(join(root, "scripts", "lab.mjs"));

let work: string;
let venv: string;
const run = (cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) => execFileSync(bin(venv, cmd), args, { encoding: "utf8", env, stdio: ["ignore", "pipe", "pipe"] });

describe(`citeflow-jupyterlab installed with pip into a fresh venv (JupyterLab ${JUPYTERLAB_NEWEST})`, () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "citeflow-install-"));
    venv = ensureVenv(JUPYTERLAB_NEWEST, { venv: join(work, "venv") });
    installWheel(venv, buildWheel(ensureVenv(JUPYTERLAB)));
  }, 600_000);

  it("lists the extension as enabled and OK, and the Citeflow kernel", () => {
    const env = { ...process.env, JUPYTER_CONFIG_DIR: join(work, "config"), JUPYTER_DATA_DIR: join(work, "data") };
    const listed = spawnSync(bin(venv, "jupyter"), ["labextension", "list"], { encoding: "utf8", env });
    expect(listed.status).toBe(0);
    // JupyterLab prints the list on stderr.
    expect(listed.stdout + listed.stderr).toMatch(/@citeflow\/jupyterlab v0\.1\.0 .*enabled.*OK.*\(python, citeflow-jupyterlab\)/);
    const specs = JSON.parse(run("jupyter", ["kernelspec", "list", "--json"], env)).kernelspecs;
    expect(specs.citeflow.spec.display_name).toBe("TypeScript (Citeflow)");
    expect(specs.citeflow.spec.argv).toEqual(["python", "-m", "citeflow_jupyterlab.kernel", "-f", "{connection_file}"]);
    expect(specs.citeflow.resource_dir.startsWith(venv)).toBe(true);
  });

  it("says in the kernel's log when Node.js or the citeflow CLI is missing", () => {
    const launch = (env: NodeJS.ProcessEnv) => spawnSync(bin(venv, "python"), ["-m", "citeflow_jupyterlab.kernel", "-f", join(work, "none.json")], { encoding: "utf8", env });
    const bare = { PATH: join(venv, "bin"), HOME: work };
    const noNode = launch(bare);
    expect(noNode.status).toBe(1);
    expect(noNode.stderr).toContain("Citeflow kernel cannot start: Node.js 20.19 or later is needed (no `node` on PATH)");
    const noCli = launch({ ...bare, CITEFLOW_NODE: process.execPath });
    expect(noCli.status).toBe(1);
    expect(noCli.stderr).toContain("the Citeflow CLI is not installed (no `citeflow` on PATH). Install it with `npm install -g @citeflow/cli`");
    const wrongCli = launch({ ...bare, CITEFLOW_NODE: process.execPath, CITEFLOW_CLI: join(work, "nowhere.js") });
    expect(wrongCli.stderr).toContain(`CITEFLOW_CLI=${join(work, "nowhere.js")} is not a file`);
    const oldNode = join(work, "old-node");
    writeFileSync(oldNode, "#!/bin/sh\necho v18.20.4\n", { mode: 0o755 });
    expect(launch({ ...bare, CITEFLOW_NODE: oldNode }).stderr).toContain("is Node.js v18.20.4; the kernel needs 20.19 or later");
  });

  it("logs the reason through the Jupyter server when a notebook starts the kernel without the CLI", async () => {
    const log = join(work, "server.log");
    const fd = openSync(log, "w");
    mkdirSync(join(work, "empty"), { recursive: true });
    const lab = await startLab({ venv, state: join(work, "state-nocli"), root: join(work, "empty"), quiet: true, log: fd, env: { CITEFLOW_CLI: "", PATH: join(venv, "bin") + ":/usr/bin:/bin" } });
    try {
      const started = await lab.api("/api/kernels", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "citeflow" }) });
      expect([201, 500]).toContain(started.status);
      await expect.poll(() => readFileSync(log, "utf8"), { timeout: 30_000 }).toContain("Citeflow kernel cannot start: the Citeflow CLI is not installed");
    } finally {
      await lab.stop();
    }
  }, 120_000);

  describe("in Chromium", () => {
    let lab: Awaited<ReturnType<typeof startLab>>;
    let browser: Browser;
    beforeAll(async () => {
      mkdirSync(shots, { recursive: true });
      const { store } = await smallSciFactStore(100);
      mkdirSync(join(work, "root"));
      lab = await startLab({
        venv,
        state: join(work, "state"),
        root: join(work, "root"),
        quiet: true,
        env: { CITEFLOW_STORE: store, CITEFLOW_RUNS: join(work, "runs"), CITEFLOW_MODELS: MODELS, CITEFLOW_NLI_MODEL: "pair-nli-scifact", CITEFLOW_CHAT_MODEL: "none" },
      });
      browser = await openBrowser(join(work, "chromium"));
      await browser.page.goto(lab.url);
      await browser.page.locator(".jp-LauncherCard").first().waitFor({ timeout: 60_000 });
    }, 240_000);
    afterAll(async () => {
      await browser?.ctx.close();
      await lab?.stop();
    }, 60_000);

    it("opens the Verif.ai template, runs a claim, and logs no errors", async () => {
      const { page, problems } = browser;
      await page.locator(".jp-LauncherCard", { hasText: "Template: Verif.ai" }).click();
      await page.locator('.cf-palette-item[data-type="retrieve.hybrid"]').waitFor({ timeout: 60_000 });
      expect(await page.locator(".cf-editor .react-flow__node").count()).toBe(8);
      await page.locator(".cf-question").fill("Vitamin D deficiency is associated with fractures.");
      await page.locator('[data-action="run"]').click();
      await expect.poll(() => page.locator(".cf-run-status").getAttribute("data-status"), { timeout: 120_000 }).toMatch(/^(ok|error)$/);
      await page.screenshot({ path: join(shots, `jupyterlab-${JUPYTERLAB_NEWEST}.png`) });
      expect(await page.locator(".cf-run-status").getAttribute("data-status")).toBe("ok");
      expect(problems).toEqual([]);
    }, 180_000);
  });
});
