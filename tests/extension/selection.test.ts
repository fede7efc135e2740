/** The editor's selection of several nodes, and what copy, cut, paste, delete and moves do with it. */
import type { GraphDoc } from "@citeflow/core";
import { Signal } from "@lumino/signaling";
import { describe, expect, it } from "vitest";
import type { CiteflowClient } from "../../extension/lib/client.js";
import { EditorState } from "../../extension/lib/state.js";

const doc = {
  citeflow: 1,
  name: "three",
  inputs: {},
  nodes: ["a", "b", "c"].map((id, i) => ({ id, type: "list.select", version: 1, params: { limit: 5 }, ui: { x: i * 240, y: 0 } })),
  edges: [
    { from: "a.items", to: "b.items" },
    { from: "b.items", to: "c.items" },
  ],
} as GraphDoc;

// The state only listens to the client's run events here; no kernel is involved.
const editor = () => new EditorState(doc, { events: new Signal({}), sets: new Signal({}) } as unknown as CiteflowClient);

describe("selecting several nodes", () => {
  it("keeps the primary node while it stays selected, else takes the last added", () => {
    const s = editor();
    s.select("a");
    expect([s.selected, [...s.selection]]).toEqual(["a", ["a"]]);
    s.setSelection(["a", "b"]);
    expect(s.selected).toBe("a");
    s.setSelection(["b", "c"]);
    expect(s.selected).toBe("c");
    s.setSelection(["b", "c"], "b");
    expect(s.selected).toBe("b");
    s.selectAll();
    expect([...s.selection]).toEqual(["a", "b", "c"]);
    s.select(undefined);
    expect([s.selected, s.selection.size]).toEqual([undefined, 0]);
  });

  it("copies the selected nodes with the edges among them; the pasted copies become the selection", () => {
    const s = editor();
    s.setSelection(["a", "b"]);
    expect(s.copy()).toBe(2);
    const ids = s.paste();
    expect(ids).toHaveLength(2);
    expect([...s.selection]).toEqual(ids);
    expect(s.doc.nodes).toHaveLength(5);
    // a→b is copied between the copies; b→c is not (c was not copied).
    expect(s.doc.edges.filter((e) => ids.some((id) => e.from.startsWith(`${id}.`)))).toEqual([{ from: `${ids[0]}.items`, to: `${ids[1]}.items` }]);
    expect(s.doc.nodes.find((n) => n.id === ids[0])!.ui).toEqual({ x: 40, y: 40 });
  });

  it("cuts the selection as one undo entry and drops removed nodes from the selection", () => {
    const s = editor();
    s.setSelection(["b", "c"]);
    s.cut();
    expect(s.doc.nodes.map((n) => n.id)).toEqual(["a"]);
    expect(s.doc.edges).toEqual([]);
    expect([s.selected, s.selection.size]).toEqual([undefined, 0]);
    s.paste();
    expect(s.doc.nodes).toHaveLength(3);
    s.undo();
    s.undo();
    expect(s.doc).toBe(doc);
    expect(s.canUndo).toBe(false);
  });

  it("moves several nodes as one undo entry, rounding to whole pixels", () => {
    const s = editor();
    s.moveNodes(
      new Map([
        ["a", { x: 10.4, y: 20.6 }],
        ["c", { x: -5, y: 7 }],
      ]),
    );
    expect(s.doc.nodes.map((n) => n.ui)).toEqual([
      { x: 10, y: 21 },
      { x: 240, y: 0 },
      { x: -5, y: 7 },
    ]);
    s.undo();
    expect(s.doc).toBe(doc);
  });

  it("copies nothing when nothing is selected, and keeps the clipboard it had", () => {
    const s = editor();
    s.select("a");
    s.copy();
    s.select(undefined);
    expect(s.copy()).toBe(0);
    expect(s.paste()).toHaveLength(1);
  });
});

describe("which runs can start", () => {
  it("needs a question for a whole run, a selected node for the rest, and a run shown to re-run from a node", () => {
    const s = editor();
    expect((["all", "to", "from", "only"] as const).map((k) => s.canStart(k))).toEqual([false, false, false, false]);
    s.question = "  vitamin D  ";
    expect((["all", "to", "from", "only"] as const).map((k) => s.canStart(k))).toEqual([true, false, false, false]);
    s.select("b");
    expect((["all", "to", "from", "only"] as const).map((k) => s.canStart(k))).toEqual([true, true, false, false]);
    s.run = { runId: "r1", status: "ok", selected: ["a", "b", "c"], nodes: {} };
    expect((["all", "to", "from", "only"] as const).map((k) => s.canStart(k))).toEqual([true, true, true, true]);
    s.run = { ...s.run, status: "paused" };
    expect(s.active).toBe(true);
    expect((["all", "to", "from", "only"] as const).map((k) => s.canStart(k))).toEqual([false, false, false, false]);
  });
});
