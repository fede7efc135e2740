/** The editor's run state: a node's streamed text reaches its badge while it runs, and goes when it ends. */
import type { GraphDoc } from "@citeflow/core";
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
    expect(s.run!.badges.answer).toEqual({ status: "running" });
    send({ type: "node-progress", nodeId: "answer", done: 9, total: 512, message: "Vitamin D deficiency is" });
    expect(s.run!.badges.answer).toEqual({ status: "running", progress: "Vitamin D deficiency is" });
    send({ type: "node-end", nodeId: "answer", cache: "miss", ms: 812 });
    expect(s.run!.badges.answer).toEqual({ status: "done", ms: 812 });
  });
});
