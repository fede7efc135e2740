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
    const doc = { citeflow: 1, name: "g", inputs: {}, nodes: [{ id: "answer", type: "generate.answer", version: 3, params: {} }], edges: [] } as unknown as GraphDoc;
    const s = new EditorState(doc, { events, sets: new Signal({}) } as unknown as CiteflowClient);
    const send = (event: Record<string, unknown>) => events.emit({ runId: "r1", event });
    send({ type: "run-start", selected: ["answer"] });
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
    const client = { events: new Signal({}), sets: new Signal({}), request: async () => record } as unknown as CiteflowClient;
    const s = new EditorState({ citeflow: 1, name: "g", inputs: {}, nodes: [], edges: [] } as unknown as GraphDoc, client);
    await s.openRun("r1");
    expect(Object.fromEntries(Object.entries(s.run!.nodes).map(([id, n]) => [id, n.status]))).toEqual({ a: "done", b: "aborted", c: "aborted" });
  });
});

describe("a question set in the editor", () => {
  const doc = {
    citeflow: 1,
    name: "g",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "q", type: "input.question", version: 1, params: {} },
      { id: "a", type: "generate.answer", version: 3, params: {} },
    ],
    edges: [],
  } as unknown as GraphDoc;
  const progress = (over: Record<string, unknown>) => ({ setId: "s1", total: 2, done: 0, inFlight: 1, failed: 0, text: "questions 0/2", runIds: ["r1", null], status: "running", ...over });

  it("one a line: Run sends the lines as a set, shows its progress (even the message that beat the reply), each run as it starts, and Stop ends the set", async () => {
    const events = new Signal<object, { runId: string; event: Record<string, unknown> }>({});
    const sets = new Signal<object, Record<string, unknown>>({});
    const requests: Array<[string, Record<string, unknown>]> = [];
    const client = {
      events,
      sets,
      request: async (method: string, params: Record<string, unknown>) => {
        requests.push([method, params]);
        if (method === "runSet") {
          // The kernel's first progress message comes before its reply.
          sets.emit(progress({}));
          return { setId: "s1", total: 2, parallel: 1 };
        }
        return null;
      },
    } as unknown as CiteflowClient;
    const s = new EditorState(doc, client);
    s.question = "Does A cause B?\n\n  Does C cause D?  \n";
    expect(s.linesAreQuestions).toBe(false);
    s.perLine = true;
    expect([s.linesAreQuestions, s.questionSet]).toEqual([true, ["Does A cause B?", "Does C cause D?"]]);
    // Part of a pipeline cannot run as a set.
    s.selected = "a";
    expect(s.cannotStart("to")).toMatch(/question set runs whole pipelines/);
    expect(await s.start()).toBe("s1");
    expect(requests[0]).toEqual(["runSet", { graph: doc, questions: ["Does A cause B?", "Does C cause D?"] }]);
    expect(s.set).toMatchObject({ setId: "s1", status: "running", runIds: ["r1", null] });
    expect(s.active).toBe(true);
    // The canvas shows the first run; the second, started while the first is under way, waits its turn.
    events.emit({ runId: "r1", event: { type: "run-start", selected: ["q", "a"] } });
    events.emit({ runId: "r2", event: { type: "run-start", selected: ["q", "a"] } });
    expect([s.run!.runId, s.run!.selected]).toEqual(["r1", ["q", "a"]]);
    events.emit({ runId: "r1", event: { type: "run-end", status: "ok", ms: 5, nodes: [] } });
    events.emit({ runId: "r2", event: { type: "run-start", selected: ["q", "a"] } });
    expect(s.run!.runId).toBe("r2");
    // Stop ends the whole set.
    await s.control("abort");
    expect(requests.at(-1)).toEqual(["abortSet", { setId: "s1" }]);
    events.emit({ runId: "r2", event: { type: "run-end", status: "aborted", ms: 3, nodes: [] } });
    sets.emit(progress({ done: 1, inFlight: 0, status: "aborted", runIds: ["r1", "r2"] }));
    expect([s.set!.status, s.active]).toEqual(["aborted", false]);
  });
});
