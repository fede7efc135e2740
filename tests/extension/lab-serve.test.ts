/** `npm run lab` serves JupyterLab first and indexes SciFact beside it, saying how far it is; Ctrl+C says where it stopped, and the next start resumes. */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");

/** Resolves when `test` holds for what has been said so far (checked each time more comes), or fails after `ms`. */
function until(said: () => string, test: (s: string) => boolean, what: string, ms: number, more: NodeJS.ReadableStream[]): Promise<void> {
  return new Promise((ok, fail) => {
    const check = () => {
      if (!test(said())) return;
      clearTimeout(timer);
      for (const s of more) s.off("data", check);
      ok();
    };
    const timer = setTimeout(() => fail(new Error(`no ${what} within ${ms / 1000} s; said:\n${said()}`)), ms);
    for (const s of more) s.on("data", check);
    check();
  });
}

describe("npm run lab on a checkout without the SciFact store", () => {
  it("serves the page before the index is built, prints the index's progress, and Ctrl+C says where it stopped", async () => {
    const work = mkdtempSync(join(tmpdir(), "citeflow-lab-serve-"));
    const notebooks = join(work, "root");
    mkdirSync(notebooks);
    // A runs folder of its own: the store is built there, not in the checkout's .citeflow/.
    const env = { ...process.env, CITEFLOW_RUNS: join(work, "runs") };
    delete env.CITEFLOW_STORE;
    const lab = spawn(process.execPath, [join(root, "scripts", "lab.mjs"), "--state", join(work, "state"), "--root", notebooks], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    lab.stdout.on("data", (d) => (out += d));
    lab.stderr.on("data", (d) => (err += d));
    const exited = new Promise<number | null>((r) => lab.on("exit", (code) => r(code)));
    try {
      await until(
        () => out,
        (s) => /http:\/\/127\.0\.0\.1:\d+\/lab\?token=\w+/.test(s),
        "lab URL",
        180_000,
        [lab.stdout],
      );
      // Served, and the index not yet built.
      const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/lab\?token=\w+/.exec(out)![0]);
      const status = await fetch(`${url.origin}/api/status`, { headers: { Authorization: `token ${url.searchParams.get("token")}` } });
      expect(status.ok).toBe(true);
      expect(err).not.toContain("SciFact is indexed");
      await until(
        () => err,
        (s) => /indexing SciFact: [\d,]+ of 5,183 abstracts \(\d+ %\)/.test(s),
        "progress line",
        120_000,
        [lab.stderr],
      );
      // JupyterLab's server says the same to the page (its status bar and launcher cards read it).
      const said = await (await fetch(`${url.origin}/citeflow/store`, { headers: { Authorization: `token ${url.searchParams.get("token")}` } })).json();
      expect(said).toMatchObject({ state: "indexing", label: "SciFact", total: 5183, documents: expect.any(Number), startedAt: expect.any(String) });
      // Not without the token.
      expect((await fetch(`${url.origin}/citeflow/store`)).status).toBe(403);
      lab.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(err).toMatch(/citeflow lab: stopped with SciFact indexed up to [\d,]+ of 5,183 abstracts; npm run lab resumes from there/);
      // What it indexed stays, marked unfinished, for the next start to resume.
      const stores = join(work, "runs", "stores");
      const meta = JSON.parse(readFileSync(join(stores, readdirSync(stores)[0]!, "citeflow-store.json"), "utf8"));
      expect(meta.incomplete).toBe(true);
    } finally {
      if (lab.exitCode === null) lab.kill("SIGKILL");
    }
  }, 360_000);
});
