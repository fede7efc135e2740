import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { installKernelspec, kernelspec, uninstallKernelspec } from "@citeflow/kernel";
import { tempDir } from "../helpers.js";
import { DATA, MODELS, smallSciFactStore } from "../scifact.js";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const PYTHON = "/usr/bin/python3";

/** Runs a Python unittest module from tests/kernel against the installed kernel; returns per-test results. */
function unittest(module: string, env: Record<string, string>): { code: number; output: string; results: Map<string, string> } {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: install Debian's python3-jupyter-client and python3-jupyter-kernel-test (.ci/run does)`);
  const r = spawnSync(PYTHON, ["-m", "unittest", "-v", module], { cwd: HERE, env: { ...process.env, ...env }, encoding: "utf8", timeout: 600_000 });
  const output = `${r.stdout}\n${r.stderr}`;
  const results = new Map<string, string>();
  for (const m of output.matchAll(/^(test_\w+) \([\w.]+\)[^\n]*?\.\.\. (?:[^\n]*\n)*?[^\n]*?(ok|FAIL|ERROR|skipped[^\n]*)$/gm)) results.set(m[1]!, m[2]!);
  return { code: r.status ?? -1, output, results };
}

describe("the Citeflow kernel under Jupyter's own client", () => {
  const env: Record<string, string> = {};
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), "citeflow-kernel-")); // kept for the whole file
    installKernelspec({ prefix: root });
    const { store } = await smallSciFactStore(200);
    mkdirSync(join(root, "nb"));
    Object.assign(env, {
      JUPYTER_PATH: join(root, "share", "jupyter"),
      CITEFLOW_KERNEL: "citeflow",
      CITEFLOW_TEST_CWD: join(root, "nb"),
      CITEFLOW_RUNS: join(root, "runs"),
      CITEFLOW_STORE: store,
      CITEFLOW_NLI_MODEL: "pair-nli-scifact",
      CITEFLOW_DATA: DATA,
      // The test fixtures, and the models Citeflow ships (their cards).
      CITEFLOW_MODELS: [MODELS, join(import.meta.dirname, "..", "..", "models")].join(delimiter),
    });
  }, 120_000);

  it("passes Debian's jupyter_kernel_test suite completely (no failures, nothing skipped)", () => {
    const r = unittest("test_protocol", env);
    expect(r.code, r.output).toBe(0);
    expect(
      [...r.results.values()].every((v) => v === "ok"),
      r.output,
    ).toBe(true);
    expect([...r.results.keys()].sort()).toEqual([
      "test_clear_output",
      "test_completion",
      "test_display_data",
      "test_error",
      "test_execute_result",
      "test_execute_stderr",
      "test_execute_stdout",
      "test_history",
      "test_inspect",
      "test_is_complete",
      "test_kernel_info",
      "test_pager",
    ]);
  }, 600_000);

  it("runs cells: errors, stop_on_error, Citeflow displays, interrupts, restart", () => {
    const r = unittest("test_cells", env);
    expect(r.code, r.output).toBe(0);
    expect(r.results.size, r.output).toBe(9);
  }, 600_000);

  it("speaks the citeflow comm: open, run a template, stream events, fetch outputs, override, step, consent in the run request, Stop while a cell runs, model cards, what a cell configures", () => {
    const r = unittest("test_comm", env);
    expect(r.code, r.output).toBe(0);
    expect(r.results.size, r.output).toBe(10);
  }, 600_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe("the kernel process", () => {
  it("exits when the process that started it is gone", async () => {
    const dir = tempDir("citeflow-kernel-orphan-");
    const ports = await Promise.all([0, 1, 2, 3, 4].map(freePort));
    const conn = join(dir, "connection.json");
    writeFileSync(
      conn,
      JSON.stringify({
        transport: "tcp",
        ip: "127.0.0.1",
        key: "k",
        signature_scheme: "hmac-sha256",
        shell_port: ports[0],
        control_port: ports[1],
        stdin_port: ports[2],
        iopub_port: ports[3],
        hb_port: ports[4],
      }),
    );
    const argv = (kernelspec().argv as string[]).map((a) => (a === "{connection_file}" ? conn : a));
    const env = { ...process.env };
    delete env.JPY_PARENT_PID;
    const parent = spawn("sh", ["-c", `${argv.map((a) => `'${a}'`).join(" ")} 2>${join(dir, "log")} & echo $!; wait`], { env, stdio: ["ignore", "pipe", "ignore"] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once("data", (b: Buffer) => resolve(b.toString().trim()))));
    const alive = (p: number) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && !readFileSyncSafe(join(dir, "log")).includes("ready"); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(true);
    parent.kill("SIGKILL");
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      await new Promise((r) => setTimeout(r, 100));
      gone = !alive(pid);
    }
    if (!gone) process.kill(pid, "SIGKILL");
    expect(gone).toBe(true);
    expect(readFileSyncSafe(join(dir, "log"))).toContain("the parent process is gone");
  }, 30_000);
});

function readFileSyncSafe(p: string): string {
  return existsSync(p) ? readFileSync(p, "utf8") : "";
}

describe("kernelspec install", () => {
  it("writes kernel.json under a prefix and removes it again", () => {
    const prefix = tempDir("citeflow-prefix-");
    const dir = installKernelspec({ prefix, name: "citeflow-test" });
    expect(dir).toBe(join(prefix, "share", "jupyter", "kernels", "citeflow-test"));
    const spec = JSON.parse(readFileSync(join(dir, "kernel.json"), "utf8"));
    expect(spec.language).toBe("typescript");
    expect(spec.argv.at(-2)).toBe("--config-path");
    expect(spec.argv.at(-1)).toBe("{connection_file}");
    expect(existsSync(spec.argv[1])).toBe(true);
    expect(uninstallKernelspec({ prefix, name: "citeflow-test" })).toBe(dir);
    expect(existsSync(dir)).toBe(false);
    expect(uninstallKernelspec({ prefix, name: "citeflow-test" })).toBeUndefined();
  });

  it("citeflow kernel install / uninstall (the CLI)", () => {
    const prefix = tempDir("citeflow-prefix-");
    const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
    const cli = (...args: string[]) => spawnSync(process.execPath, [bin, "kernel", ...args], { encoding: "utf8" });
    const inst = cli("install", "--prefix", prefix, "--display-name", "Citeflow TS");
    expect(inst.status, inst.stderr).toBe(0);
    const spec = JSON.parse(readFileSync(join(prefix, "share", "jupyter", "kernels", "citeflow", "kernel.json"), "utf8"));
    expect(spec.display_name).toBe("Citeflow TS");
    expect(cli("install", "--prefix", prefix, "--user").status).toBe(2);
    expect(cli("uninstall", "--prefix", prefix).status).toBe(0);
    const again = cli("uninstall", "--prefix", prefix);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('no kernelspec "citeflow"');
  });

  it("refuses a kernel name that is not a folder name", () => {
    expect(() => installKernelspec({ prefix: tempDir("citeflow-prefix-"), name: "../evil" })).toThrow(/kernel name "..\/evil"/);
  });
});
