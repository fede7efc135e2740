/**
 * The kernel's comm does its file work (runs, record, output, correct, diff, export, evidence pages)
 * on its file thread, so its event loop keeps answering: the replies are right, none of it touched a
 * RunStore on the kernel's own thread, and the PDF page went to the thread.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadGraph } from "@citeflow/core";
import { Session } from "@citeflow/host";
import { configFromEnv, createServices } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { citeflowTarget } from "../../kernel/dist/citeflow-comm.js";
import { StoreThread } from "../../kernel/dist/store-jobs.js";
import { plainAbstracts, typesetPaper } from "../../scripts/papers.mjs";
import { doc, tempDir, testRegistry } from "../helpers.js";

type Reply = { type: string; id: number; ok: boolean; result?: unknown; error?: { name: string; message: string } };

afterEach(() => vi.restoreAllMocks());

/** The kernel's comm on runs folder `dir`, and a way to ask it one request and wait for its reply. */
function comm(dir: string) {
  const replies = new Map<number, Reply>();
  let answered: () => void = () => undefined;
  const handler = citeflowTarget(
    {
      id: "c",
      target: "citeflow",
      send: (d) => {
        const r = d as Reply;
        if (r.type !== "reply") return;
        replies.set(r.id, r);
        answered();
      },
      close: () => undefined,
    },
    { runs: dir },
  );
  let next = 0;
  const ask = async (method: string, params: Record<string, unknown> = {}): Promise<Reply> => {
    const id = next++;
    const got = new Promise<void>((resolve) => (answered = () => replies.has(id) && resolve()));
    handler.onMessage({ id, method, ...params });
    await got;
    return replies.get(id)!;
  };
  return { ask, handler };
}

describe("the kernel's file thread", () => {
  it("answers runs, record, output, correct, diff and export from another thread; errors keep their message", async () => {
    const dir = tempDir();
    const registry = testRegistry();
    const session = new Session(registry, createServices(configFromEnv({}, dir)), dir);
    const graph = (value: number) => loadGraph(doc({ a: ["test.const", { value }], b: ["test.add", { delta: 1 }] }, ["a.out->b.a"]), registry);
    const first = session.start(graph(1), {});
    const second = session.start(graph(2), {});
    expect((await first.result).status).toBe("ok");
    expect((await second.result).status).toBe("ok");

    // From here on, no RunStore method may run on this thread.
    const onThisThread = Object.getOwnPropertyNames(RunStore.prototype)
      .filter((m) => m !== "constructor" && typeof Object.getOwnPropertyDescriptor(RunStore.prototype, m)?.value === "function")
      .map((m) => vi.spyOn(RunStore.prototype as unknown as Record<string, () => unknown>, m));
    const { ask, handler } = comm(dir);

    const runs = (await ask("runs")).result as Array<{ runId: string }>;
    expect(runs.map((r) => r.runId).sort()).toEqual([first.runId, second.runId].sort());
    const record = (await ask("record", { runId: first.runId })).result as { runId: string; nodes: unknown[]; corrections: unknown[] };
    expect(record.runId).toBe(first.runId);
    expect(record.nodes).toHaveLength(2);
    expect(record.corrections).toEqual([]);
    expect((await ask("output", { runId: second.runId, nodeId: "b", port: "out" })).result).toBe(3);
    expect((await ask("diff", { a: first.runId, b: second.runId })).ok).toBe(true);
    // The store checks a correction against the run (this graph writes no answer), there too.
    const corrected = await ask("correct", { runId: first.runId, correction: { kind: "answer", nodeId: "b", text: "Two." } });
    expect(corrected.ok).toBe(false);
    expect(corrected.error!.message).toContain('node "b" has no answer');
    const out = join(tempDir(), "export");
    const exported = await ask("export", { format: "nli", out });
    expect(exported.ok, JSON.stringify(exported.error)).toBe(true);
    expect(existsSync(join(out, "README.md"))).toBe(true);
    const missing = await ask("record", { runId: "no-such-run" });
    expect(missing.ok).toBe(false);
    expect(missing.error!.message).toContain("no-such-run");
    for (const spy of onThisThread) expect(spy, spy.getMockName()).not.toHaveBeenCalled();
    handler.onClose?.();
  });

  it("renders a PDF's evidence page there, the span marked; a file that is not a PDF is refused by name", async () => {
    const dir = tempDir();
    const [abstract] = await plainAbstracts(1);
    const paper = typesetPaper(join(dir, "paper"), "paper", [abstract], []);
    const jobs = vi.spyOn(StoreThread.prototype, "run");
    const { ask, handler } = comm(dir);
    const shown = await ask("evidencePage", { path: paper.pdf, start: 0, end: 20 });
    expect(shown.ok, JSON.stringify(shown.error)).toBe(true);
    const page = shown.result as { page: number; png: string; width: number; height: number; boxes: number[][] };
    expect(page.page).toBe(1);
    expect(Buffer.from(page.png, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(page.boxes.length).toBeGreaterThan(0);
    expect(jobs.mock.calls.map(([job]) => job.kind)).toEqual(["evidencePage"]);
    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a PDF");
    const refused = await ask("evidencePage", { path: text, start: 0, end: 5 });
    expect([refused.ok, refused.error?.message]).toEqual([false, `${text}: not a PDF`]);
    handler.onClose?.();
  }, 60_000);
});
