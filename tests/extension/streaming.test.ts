/** The editor's run state: a node's streamed text reaches its badge while it runs, and goes when it ends. */
import type { GraphDoc } from "@citeflow/core";
import { storedNodeStatus } from "@citeflow/core/browser";
import { Signal } from "@lumino/signaling";
import { describe, expect, it } from "vitest";
import type { CiteflowClient } from "../../extension/lib/client.js";
import { EditorState } from "../../extension/lib/state.js";

describe("streamed text on the canvas", () => {
  it("node-progress with text sets the running badge's progress; node-end replaces it with done", () => {
    const events = new Signal<object, { runId: string; event: Record<string, unknown> }>({});
    const doc = { citeflow: 1, name: "g", inputs: {}, nodes: [{ id: "answer", type: "generate.answer", version: 2, params: {} }], edges: [] } as unknown as GraphDoc;
    const s = new EditorState(doc, { events } as unknown as CiteflowClient);
    const send = (event: Record<string, unknown>) => events.emit({ runId: "r1", event });
    send({ type: "run-start" });
    send({ type: "node-start", nodeId: "answer" });
    send({ type: "node-progress", nodeId: "answer", done: 3, total: 512 }); // no text: the badge stays as it is
    expect(s.run!.nodes.answer).toEqual({ status: "running" });
    send({ type: "node-progress", nodeId: "answer", done: 9, total: 512, message: "Vitamin D deficiency is" });
    expect(s.run!.nodes.answer).toEqual({ status: "running", progress: "Vitamin D deficiency is" });
    send({ type: "node-end", nodeId: "answer", cache: "miss", ms: 812 });
    expect(s.run!.nodes.answer).toEqual({ status: "done", cache: "miss", ms: 812 });
  });
});

describe("one fold of run events (core's reduceRunEvent)", () => {
  it("a resumed node is queued until it starts; a run that ends leaves nothing queued, running or paused", async () => {
    const { reduceRunEvent, startedRun } = await import("@citeflow/core");
    let r = startedRun("r", ["a", "b", "c"]);
    const at = 0;
    r = reduceRunEvent(r, { type: "node-paused", runId: "r", at, nodeId: "a", reason: "breakpoint" });
    expect([r.status, r.pausedAt, r.nodes.a]).toEqual(["paused", "a", { status: "paused" }]);
    r = reduceRunEvent(r, { type: "node-resumed", runId: "r", at, nodeId: "a" });
    expect([r.status, r.pausedAt, r.nodes.a]).toEqual(["running", undefined, { status: "queued" }]);
    r = reduceRunEvent(r, { type: "node-start", runId: "r", at, nodeId: "a" });
    r = reduceRunEvent(r, { type: "node-end", runId: "r", at, nodeId: "a", cache: "hit", ms: 3, outputHashes: {}, summary: "3 passages" });
    r = reduceRunEvent(r, { type: "node-skipped", runId: "r", at, nodeId: "b", reason: "aborted" });
    r = reduceRunEvent(r, { type: "run-end", runId: "r", at, status: "aborted", ms: 9, nodes: [] });
    expect(r).toEqual({ runId: "r", status: "aborted", ms: 9, nodes: { a: { status: "done", cache: "hit", ms: 3, summary: "3 passages" }, b: { status: "aborted" }, c: { status: "aborted" } } });
    // An event that shows nothing new leaves the progress as it was.
    expect(reduceRunEvent(r, { type: "node-log", runId: "r", at, nodeId: "a", level: "info", message: "x" })).toBe(r);
  });
});

describe("a stored run's node status (core's storedNodeStatus, for the notebook and the editor)", () => {
  it("a node a stored record leaves running or paused reads aborted; an unknown status reads skipped", () => {
    expect(["running", "paused", "done", "error", "skipped", "aborted", "exploded"].map(storedNodeStatus)).toEqual(["aborted", "aborted", "done", "error", "skipped", "aborted", "skipped"]);
  });

  it("the editor's history shows a stored run through it", async () => {
    const record = {
      runId: "r1",
      status: "aborted",
      nodes: [
        { id: "a", status: "done", spans: [] },
        { id: "b", status: "paused", spans: [] },
        { id: "c", status: "running", spans: [] },
      ],
      corrections: [],
    };
    const client = { events: new Signal({}), request: async () => record } as unknown as CiteflowClient;
    const s = new EditorState({ citeflow: 1, name: "g", inputs: {}, nodes: [], edges: [] } as unknown as GraphDoc, client);
    await s.openRun("r1");
    expect(Object.fromEntries(Object.entries(s.run!.nodes).map(([id, n]) => [id, n.status]))).toEqual({ a: "done", b: "aborted", c: "aborted" });
  });
});
