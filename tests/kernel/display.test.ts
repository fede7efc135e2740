import { describe, expect, it } from "vitest";
import { PREVIEW_CHARS, previewText, type Passage } from "@citeflow/core";
import { answerBundle, CITEFLOW_MIME, FALLBACK_ROWS, passagesBundle, passagesHtml, scoreChart, viewBundle, type AnswerView, type PassagesView, type RunView } from "citeflow";

const long = "Vitamin D supplementation and fracture risk. ".repeat(40);
const passages = (n: number): Passage[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${i}#0`, title: `Study ${i}`, text: i % 2 ? long : "short text", metadata: {}, scores: { bm25: 30 - i * 0.01, dense: 1 - i / n } }));

describe("display payloads carry passages as the inspectors show them", () => {
  it("cuts long passage texts to the preview and keeps everything else", () => {
    const input = passages(1000);
    const view = passagesBundle(input, "vitamin D")[CITEFLOW_MIME] as PassagesView;
    expect(view.passages).toHaveLength(1000);
    expect(view.preview).toBe(PREVIEW_CHARS); // the renderer says so when it shows a cut text
    // Cut at the last whole word that fits (a word is never cut: a credential stays whole for redaction).
    expect(view.passages[1]!.text).toBe(long.slice(0, long.lastIndexOf(" ", PREVIEW_CHARS)) + "…");
    expect(view.passages[0]).toBe(input[0]); // short: the same object
    expect(view.passages.map((p) => [p.id, p.title, p.scores])).toEqual(input.map((p) => [p.id, p.title, p.scores]));
    expect(input[1]!.text).toBe(long); // the caller's values are not changed
    expect(JSON.stringify(view).length).toBeLessThan(JSON.stringify(input).length / 3);
  });

  it("previewText is the identity on its own output", () => {
    expect(previewText("short")).toBe("short");
    expect(previewText(previewText(long))).toBe(previewText(long));
    expect(previewText("x".repeat(PREVIEW_CHARS))).toBe("x".repeat(PREVIEW_CHARS));
  });

  it("stops the HTML and text tables at FALLBACK_ROWS rows and says how many more there are", () => {
    const bundle = passagesBundle(passages(1000));
    const html = bundle["text/html"] as string;
    expect(html.match(/<tr>/g)).toHaveLength(FALLBACK_ROWS + 1); // + the head row
    expect(html).toContain(`… ${1000 - FALLBACK_ROWS} more passages (1000 in all)`);
    const text = (bundle["text/plain"] as string).split("\n");
    expect(text[0]).toBe("1000 passages (scores: bm25, dense)");
    expect(text).toHaveLength(1 + FALLBACK_ROWS + 1);
    expect(text.at(-1)).toBe(`… ${1000 - FALLBACK_ROWS} more passages (1000 in all)`);
    // A short list is whole, with no "more" line.
    expect(passagesBundle(passages(3))["text/html"]).not.toContain("more passages");
    expect(passagesHtml(passages(1000), Infinity).match(/<tr>/g)).toHaveLength(1001);
  });

  it("cuts the passages of an answer and of every passage list among a run's outputs", () => {
    const answer = { text: "Yes [1].", citations: { "1": "1#0" }, allowed: ["0#0", "1#0"], invalidCitations: [] };
    const a = answerBundle(answer, passages(2))[CITEFLOW_MIME] as AnswerView;
    expect(a.passages![1]!.text).toBe(previewText(a.passages![1]!.text));
    expect(a.passages![1]!.text.length).toBeLessThanOrEqual(PREVIEW_CHARS + 1);
    expect(a.passages![1]!.text).toMatch(/…$/);
    expect(a.answer).toEqual(answer);
    const run: RunView = {
      version: 1,
      kind: "run",
      runId: "r1",
      status: "ok",
      graph: { citeflow: 1, name: "g", inputs: {}, nodes: [], edges: [] },
      runStore: "/tmp/runs",
      nodes: [],
      outputs: { retrieve: { passages: passages(4), count: 4 }, note: { text: long } },
    };
    const shown = viewBundle(run)[CITEFLOW_MIME] as RunView;
    expect(shown.preview).toBe(PREVIEW_CHARS);
    const out = shown.outputs!;
    expect((out.retrieve!.passages as Passage[])[3]!.text.length).toBeLessThanOrEqual(PREVIEW_CHARS + 1);
    expect((out.retrieve!.passages as Passage[])[3]!.text).toMatch(/…$/);
    expect(out.retrieve!.count).toBe(4);
    expect(out.note!.text).toBe(long); // not a passage list: left whole
  });
});

describe("the HTML a display writes escapes every value (run records are files anyone could change)", () => {
  it("a run, an answer, passages and verdicts with markup in every field show it as text", () => {
    const evil = `"><img src=x onerror=alert(1)><script>alert(2)</script>`;
    const p = { id: evil, title: evil, text: evil, scores: { [evil]: 1 }, metadata: {} } as unknown as Passage;
    const run = {
      version: 1,
      kind: "run",
      runId: evil,
      status: evil,
      question: evil,
      ms: 12,
      graph: { citeflow: 1, name: evil, inputs: {}, nodes: [], edges: [] },
      runStore: "/tmp/runs",
      nodes: [{ id: evil, type: evil, status: evil, models: [evil], warnings: [evil], error: evil, ms: evil }],
    } as unknown as RunView;
    const answer = { text: `See [1] ${evil}`, citations: { "1": evil }, allowed: [], invalidCitations: [{ marker: evil }] };
    const verdicts = { version: 1, kind: "verdicts", claims: [{ id: "c", text: evil }], verdicts: [{ claimId: "c", label: evil, passageId: evil, evidence: { sentence: evil, page: evil } }] };
    for (const bundle of [viewBundle(run), answerBundle(answer as never, [p]), passagesBundle([p]), viewBundle(verdicts as never)]) {
      const out = bundle["text/html"] as string;
      expect(out).not.toMatch(/<img|<script|onerror=alert\(1\)>/);
      expect(out).toContain("&lt;script&gt;");
    }
  });
});

describe("a live run's display shows a node's text while it streams", () => {
  it("carries the node's progress message while it runs, and drops it when the node is done", async () => {
    const { defineNode, loadGraph, start } = await import("citeflow");
    const { NodeRegistry } = await import("@citeflow/core");
    const { z } = await import("zod");
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stream = defineNode({
      type: "test.stream",
      version: 1,
      title: "Streams",
      family: "test",
      description: "Reports text so far, then finishes",
      inputs: {},
      outputs: { out: { type: "Text" } },
      params: z.object({}),
      async run(_i, _p, ctx) {
        ctx.progress(3, 10, "The answer so");
        await gate;
        return { out: "The answer so far." };
      },
    });
    const graph = loadGraph({ citeflow: 1, name: "stream", inputs: {}, nodes: [{ id: "gen", type: "test.stream", version: 1, params: {} }], edges: [] }, new NodeRegistry([stream]));
    const live = start(graph, {}, { display: false, runs: mkdtempSync(join(tmpdir(), "citeflow-live-")) });
    const node = () => live.view().nodes.find((n) => n.id === "gen")!;
    for (let i = 0; i < 200 && node().progress === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    expect(node()).toMatchObject({ status: "running", progress: "The answer so" });
    release();
    await live.done;
    expect(node().status).toBe("done");
    expect(node().progress).toBeUndefined();
  });
});

describe("scoreChart", () => {
  it("bins and scales each score on its own values, one panel a score", () => {
    const p = (id: string, bm25: number, dense: number): Passage => ({ id, title: "t", text: "x", metadata: {}, scores: { bm25, dense } });
    const chart = scoreChart([p("1#0", 31.5, 0.82), p("2#0", 12, 0.41), p("3#0", 4.2, 0.05)]);
    const panels = chart.spec.concat as Array<{ title: string; transform: Array<{ filter: { field: string; equal: string } }> }>;
    expect(panels.map((x) => [x.title, x.transform[0]!.filter])).toEqual([
      ["bm25", { field: "score", equal: "bm25" }],
      ["dense", { field: "score", equal: "dense" }],
    ]);
    expect(chart.spec.facet).toBeUndefined();
    expect(chart.summary).toContain("dense: n=3 min=0.050 median=0.410 max=0.820");
  });
});
