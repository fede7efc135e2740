import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadGraph, startRun } from "@citeflow/core";
import { RunStore } from "@citeflow/runstore";
// @ts-expect-error: plain JS fixture shared with the child process
import { crashGraph } from "../fixtures/crash-run.mjs";
import { tempDir, testRegistry } from "../helpers.js";

const script = fileURLToPath(new URL("../fixtures/crash-run.mjs", import.meta.url));

async function waitFor(cond: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("crash safety", () => {
  it("a SIGKILLed run leaves finished nodes readable, and a re-run reuses them", async () => {
    const dir = tempDir();
    const store = new RunStore(dir);
    const runId = "20260101T000000Z-crash0";
    const child = spawn(process.execPath, [script, dir, runId], { stdio: "inherit" });
    const exited = new Promise((r) => child.on("exit", (code, signal) => r(signal ?? code)));
    const path = store.runPath(runId);
    // n4 sleeps for a minute: kill the process once it has started.
    await waitFor(() => existsSync(path) && /"node-start"[^\n]*"nodeId":"n4"/.test(readFileSync(path, "utf8")), 20_000);
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");

    const rec = store.readRun(runId);
    expect(rec.status).toBe("incomplete");
    expect(rec.nodes.map((n) => [n.id, n.status])).toEqual([
      ["n1", "done"],
      ["n2", "done"],
      ["n3", "done"],
      ["n4", "running"],
    ]);
    expect(store.nodeOutput(runId, "n3", "out")).toBe(6);
    expect(store.listRuns()[0]).toMatchObject({ runId, status: "incomplete" });

    // Re-run, with the slow node made quick: the finished nodes come from the cache.
    const fixed = structuredClone(crashGraph);
    fixed.nodes[3].params.ms = 5;
    const again = await startRun(loadGraph(fixed, testRegistry()), store.runOptions()).result;
    expect(again.status).toBe("ok");
    expect(again.nodes.map((n) => [n.id, n.cache])).toEqual([
      ["n1", "hit"],
      ["n2", "hit"],
      ["n3", "hit"],
      ["n4", "miss"],
      ["n5", "miss"],
    ]);
    expect(again.nodes[4]!.outputs!.out).toBe(15);
  });
});
