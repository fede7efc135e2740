import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const cli = (args: string[], cwd: string) =>
  new Promise<{ code: number; stderr: string; stdout: string }>((resolve) =>
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, CITEFLOW_RUNS: "" } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** Paths on the command line are checked before anything runs, and the error says what was expected. */
describe("the CLI's folder and file options", () => {
  it("a file where a folder belongs, a missing run store, a missing input file: clear errors, nothing written", async () => {
    const dir = tempDir();
    const file = join(dir, "notes.txt");
    writeFileSync(file, "x");
    const cases: Array<[string[], number, string]> = [
      [["ingest", file, "--store", file], 2, `--store ${file}: that is a file; give a folder (it is created when missing)`],
      [["run", "verifai", "-q", "x", "--runs", file], 2, `--runs ${file}: that is a file; give a folder`],
      [["export", "--runs", join(dir, "none"), "--format", "sft", "--out", join(dir, "out")], 1, `--runs ${join(dir, "none")}: no such folder`],
      [["runs", "list", "--runs", join(dir, "none")], 1, `--runs ${join(dir, "none")}: no such folder`],
      [["search", "q", "--store", join(dir, "none")], 1, `--store ${join(dir, "none")}: no such folder (build a store with citeflow ingest --store)`],
      [["eval", "scifact", "--claims", join(dir, "none.jsonl"), "--store", dir], 1, `--claims ${join(dir, "none.jsonl")}: no such file`],
      [["eval", "retrieval", "--queries", dir, "--qrels", file, "--store", dir], 2, `--queries ${dir}: that is a folder; give a file`],
    ];
    for (const [args, code, message] of cases) {
      const r = await cli(args, dir);
      expect(r.stderr, args.join(" ")).toContain(message);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr).not.toMatch(/EEXIST|ENOTDIR|ENOENT|\n\s+at /);
    }
    expect(existsSync(join(dir, "out"))).toBe(false);
  });
});
