/**
 * Writes stay inside their folder and are whole or absent: a symbolic link Citeflow did not make is
 * never written through, a name from outside data cannot climb out of its folder, and a full disk
 * (here a file-size limit) keeps the previous file, leaves no temp file and says what failed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { exportDataset } from "@citeflow/datasets";
import { loadPrompt } from "@citeflow/nodes";
import { appendLines, inside, READ_WHOLE_BYTES, readRegularFile, RunStore, writeFileAtomic } from "@citeflow/runstore";
import { openGraph } from "@citeflow/host";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { doc, envServices, run, tempDir, testRegistry } from "../helpers.js";

const runstore = fileURLToPath(new URL("../../packages/runstore/dist/index.js", import.meta.url));

describe("writes stay inside their folder", () => {
  it("a name from outside data never leaves its folder", () => {
    const folder = tempDir();
    for (const bad of ["../x", "../../etc/passwd", "/etc/passwd", "a/../../x", "..", "."]) expect(() => inside(folder, bad), bad).toThrow(/outside/);
    fc.assert(
      fc.property(fc.array(fc.constantFrom("..", ".", "a", "b", "/", "c.pdf"), { maxLength: 8 }), (parts) => {
        const name = parts.join("/");
        let path: string;
        try {
          path = inside(folder, name);
        } catch {
          return;
        }
        expect(path.startsWith(folder + "/")).toBe(true);
      }),
    );
  });

  it("a symlinked blobs folder, run file or corrections file is refused by name; the link's target is untouched", async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    mkdirSync(dir, { recursive: true });
    symlinkSync(elsewhere, join(dir, "blobs"));
    const store = new RunStore(dir);
    const d = doc({ p: ["test.any", { value: { big: "x".repeat(5000) } }] });
    const { result } = await run(d, { ...store.runOptions(), inputs: {} });
    expect(result.status).toBe("error");
    expect(JSON.stringify(result)).toMatch(/blobs is a symbolic link: Citeflow writes only into folders and files it made/);
    expect(readdirSync(elsewhere)).toEqual([]);

    const target = join(elsewhere, "victim.txt");
    writeFileSync(target, "keep\n");
    const linked = join(tempDir(), "corrections", "r1.jsonl");
    mkdirSync(join(linked, ".."), { recursive: true });
    symlinkSync(target, linked);
    expect(() => appendLines(linked, "{}\n")).toThrow(/symbolic link/);
    expect(readFileSync(target, "utf8")).toBe("keep\n");
  });

  it("export --out refuses to write through a train.jsonl that is a link", () => {
    const out = tempDir();
    const target = join(tempDir(), "victim.jsonl");
    writeFileSync(target, "keep\n");
    symlinkSync(target, join(out, "train.jsonl"));
    const runs = tempDir();
    expect(() => exportDataset({ runs, services: envServices(), format: "sft", out, split: 1 })).toThrow(/train\.jsonl is a symbolic link/);
    expect(readFileSync(target, "utf8")).toBe("keep\n");
  });
});

describe("a full disk loses nothing", () => {
  /** Runs a script under a 16 KB file-size limit: writes past it fail with EFBIG, as on a full disk. */
  function limited(script: string): string {
    return execFileSync("sh", ["-c", `ulimit -f 32; exec "${process.execPath}" --input-type=module -e "$0"`, `process.on("SIGXFSZ", () => {}); ${script}`], { encoding: "utf8" });
  }

  it("an atomic write keeps the previous file and no temp file; an append is cut back to whole lines", () => {
    const dir = tempDir();
    const file = join(dir, "blob.json");
    const log = join(dir, "run.jsonl");
    writeFileSync(file, "previous");
    writeFileSync(log, '{"line":1}\n');
    const out = limited(`
      const { writeFileAtomic, appendLines } = await import(${JSON.stringify(runstore)});
      for (const f of [() => writeFileAtomic(${JSON.stringify(file)}, "y".repeat(100000)), () => appendLines(${JSON.stringify(log)}, "z".repeat(100000) + "\\n")]) {
        try { f(); console.log("written"); } catch (e) { console.log(e.message); }
      }`);
    expect(out).toContain(`could not write ${file}: the file-size limit was reached; nothing was changed there`);
    expect(out).toContain(`could not write ${log}: the file-size limit was reached`);
    expect(readFileSync(file, "utf8")).toBe("previous");
    expect(readFileSync(log, "utf8")).toBe('{"line":1}\n');
    expect(readdirSync(dir).sort()).toEqual(["blob.json", "run.jsonl"]);
  });

  it("a temp file left by a killed writer is removed when the store next opens", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "blobs", "ab"), { recursive: true });
    const stale = join(dir, "blobs", "ab", "ab12.json.999999999.k3j2.tmp");
    writeFileSync(stale, "half");
    writeFileAtomic(join(dir, "blobs", "ab", "kept.json"), "{}");
    new RunStore(dir);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(dir, "blobs", "ab", "kept.json"))).toBe(true);
  });
});

describe("reads take regular files only", () => {
  it("a FIFO as a prompt file or in the run store is named, never waited on: runs list and export go on with the rest", async () => {
    const dir = tempDir();
    const fifo = join(dir, "prompt.txt");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(() => loadPrompt("file:prompt.txt", [dir])).toThrow(/prompt\.txt is a FIFO: Citeflow reads only regular files here/);

    const store = new RunStore(join(dir, "runs"));
    await run(doc({ p: ["test.any", { value: 1 }] }), { ...store.runOptions(), inputs: {} });
    expect(spawnSync("mkfifo", [join(store.runsDir, "20990101T000000Z-fifo00.jsonl")]).status).toBe(0);
    expect(store.listRuns()).toHaveLength(1);
    const out = tempDir();
    const r = exportDataset({ runs: store.dir, services: envServices(), format: "sft", out, split: 1 });
    expect(JSON.stringify(r.skippedRuns)).toMatch(/is a FIFO/);
  });
});

describe("reads are bounded in size", () => {
  it("a file too large to read whole is refused by name and size, not read: a prompt, a graph file, a run's record, a stored value", async () => {
    const dir = tempDir();
    // Sparse files: their size is what is checked, and they take no disk.
    const big = (name: string, bytes: number) => {
      const path = join(dir, name);
      writeFileSync(path, "");
      truncateSync(path, bytes);
      return path;
    };
    big("prompt.txt", 5 * 2 ** 20);
    expect(() => loadPrompt("file:prompt.txt", [dir])).toThrow(`${join(dir, "prompt.txt")} is 5 MiB: Citeflow reads at most 4 MiB of a prompt`);
    expect(() => openGraph(big("g.citeflow.json", 65 * 2 ** 20), testRegistry())).toThrow("g.citeflow.json is 65 MiB: Citeflow reads at most 64 MiB of a graph file");

    const store = new RunStore(join(dir, "runs"));
    const r = await run(doc({ p: ["test.any", { value: "a stored value" }] }), { ...store.runOptions(), inputs: {} });
    const [file] = readdirSync(store.runsDir);
    truncateSync(join(store.runsDir, file!), READ_WHOLE_BYTES + 1);
    expect(() => store.readRun(r.result.runId)).toThrow(`is 256 MiB: Citeflow reads at most 256 MiB of a run's record`);
    const blob = join(dir, "blob");
    writeFileSync(blob, "");
    truncateSync(blob, READ_WHOLE_BYTES + 1);
    expect(() => readRegularFile(blob, READ_WHOLE_BYTES, "a run's stored value")).toThrow(`${blob} is 256 MiB: Citeflow reads at most 256 MiB of a run's stored value`);
  });
});

describe("a read-only run store", () => {
  // A read-only file system needs a mount (root with the right to mount); chmod would not stop root.
  // Where no mount is allowed the case is skipped, and says so.
  it("is said in the user's terms, naming the store and what to do", (ctx) => {
    const mnt = tempDir();
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt]).status !== 0) return ctx.skip("no tmpfs mount allowed here: a read-only file system cannot be made");
    try {
      mkdirSync(join(mnt, "runs"));
      expect(spawnSync("mount", ["-o", "remount,ro", mnt]).status).toBe(0);
      expect(() => new RunStore(join(mnt, "runs")).recorder()).toThrow(
        new RegExp(
          `^the run store ${join(mnt, "runs")} cannot be written \\(could not write .*: the file system is read-only; nothing was changed there\\): choose another with --runs or \\$CITEFLOW_RUNS$`,
        ),
      );
    } finally {
      spawnSync("umount", [mnt]);
    }
  });
});
