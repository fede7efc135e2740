/** The editor's undo history across changes made underneath it (text editor, revert, reload). */
import type { GraphDoc } from "@citeflow/core";
import { Signal } from "@lumino/signaling";
import { describe, expect, it } from "vitest";
import type { CiteflowClient } from "../../extension/lib/client.js";
import { EditorState } from "../../extension/lib/state.js";

const graph = (ids: string[]): GraphDoc =>
  ({
    citeflow: 1,
    name: "g",
    inputs: {},
    nodes: ids.map((id, i) => ({ id, type: "list.select", version: 1, params: { limit: 5 }, ui: { x: i * 240, y: 0 } })),
    edges: [],
  }) as GraphDoc;
const ids = (s: EditorState) => s.doc.nodes.map((n) => n.id);

/** An editor that has read `first` from its file, and the documents it wrote back since. */
function opened(first: GraphDoc) {
  const s = new EditorState(graph([]), { events: new Signal({}), sets: new Signal({}) } as unknown as CiteflowClient);
  const written: string[][] = [];
  s.docChanged.connect((_, doc) => void written.push(doc.nodes.map((n) => n.id)));
  s.reload(first, true);
  return { s, written };
}

describe("undo across changes underneath", () => {
  it("does not undo the file's first read", () => {
    const { s, written } = opened(graph(["a"]));
    expect(s.canUndo).toBe(false);
    s.undo();
    expect([ids(s), written]).toEqual([["a"], []]);
  });

  it("takes a change underneath as one entry: undo returns to what the canvas showed before it, redo brings it back", () => {
    const { s, written } = opened(graph(["a"]));
    s.edit(graph(["a", "b"]));
    s.reload(graph(["a", "b", "c"]));
    // Shown, not written back: the text is the user's.
    expect([ids(s), written]).toEqual([["a", "b", "c"], [["a", "b"]]]);
    s.undo();
    expect(ids(s)).toEqual(["a", "b"]);
    s.undo();
    expect(ids(s)).toEqual(["a"]);
    s.redo();
    s.redo();
    expect(ids(s)).toEqual(["a", "b", "c"]);
    expect(written).toEqual([["a", "b"], ["a", "b"], ["a"], ["a", "b"], ["a", "b", "c"]]);
  });

  it("after a spell of not reading, undo goes back to the last version that read, never to an older one", () => {
    const { s } = opened(graph(["a"]));
    s.edit(graph(["a", "b"]));
    s.unreadable = "g.citeflow.json: 1 problem";
    expect(s.canUndo).toBe(false);
    s.unreadable = undefined;
    s.reload(graph(["a", "b", "fixed"]));
    s.undo();
    expect(ids(s)).toEqual(["a", "b"]);
  });

  it("makes no entry for a change that leaves the graph as it was, and clears redo for one that does not", () => {
    const { s } = opened(graph(["a"]));
    s.edit(graph(["a", "b"]));
    s.reload(graph(["a", "b"]));
    s.undo();
    expect([ids(s), s.canUndo]).toEqual([["a"], false]);
    s.reload(graph(["z"]));
    expect(s.canRedo).toBe(false);
  });

  it("drops a node removed underneath from the selection", () => {
    const { s } = opened(graph(["a", "b"]));
    s.setSelection(["a", "b"], "b");
    s.reload(graph(["a"]));
    expect([s.selected, [...s.selection]]).toEqual([undefined, ["a"]]);
  });
});
