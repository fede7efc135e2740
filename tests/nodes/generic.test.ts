import { describe, expect, it } from "vitest";
import { doc, run } from "../helpers.js";

const passages = (ids: string[], score: string) => ["test.passages", { ids, score }] as [string, Record<string, unknown>];

describe("input.question / input.questions", () => {
  it("emit the run's inputs; input.questions can limit", async () => {
    const qs = [1, 2, 3].map((i) => ({ id: String(i), text: `question ${i}` }));
    const r = await run(doc({ q: ["input.questions", { limit: 2 }] }, [], { questions: { type: "Question[]" } }), { inputs: { questions: qs } });
    expect(r.byId.q!.outputs!.questions).toEqual(qs.slice(0, 2));
  });

  it("reads a named input", async () => {
    const d = doc({ a: ["input.question", { name: "main" }], b: ["input.question", { name: "followup" }] }, [], { main: { type: "Question" }, followup: { type: "Question" } });
    const r = await run(d, { inputs: { main: { id: "m", text: "main q" }, followup: { id: "f", text: "follow-up q" } } });
    expect([r.byId.a!.outputs!.question, r.byId.b!.outputs!.question]).toEqual([
      { id: "m", text: "main q" },
      { id: "f", text: "follow-up q" },
    ]);
  });
});

describe("list.merge", () => {
  it("merges passage lists, one per id, keeping every score", async () => {
    const r = await run(doc({ lex: passages(["1#0", "2#0"], "bm25"), dense: passages(["2#0", "3#0"], "dense"), m: ["list.merge"] }, ["lex.passages->m.lists", "dense.passages->m.lists"]));
    const items = r.byId.m!.outputs!.items as Array<{ id: string; scores: Record<string, number> }>;
    expect(items.map((p) => p.id)).toEqual(["1#0", "2#0", "3#0"]);
    expect(items[1]!.scores).toEqual({ bm25: 0.9, dense: 1 });
  });

  it("interleaves, and keeps duplicates when asked", async () => {
    const base = { a: passages(["1#0", "2#0", "3#0"], "bm25"), b: passages(["9#0", "1#0"], "dense") };
    const edges = ["a.passages->m.lists", "b.passages->m.lists"];
    const inter = await run(doc({ ...base, m: ["list.merge", { mode: "interleave" }] }, edges));
    expect((inter.byId.m!.outputs!.items as Array<{ id: string }>).map((p) => p.id)).toEqual(["1#0", "9#0", "2#0", "3#0"]);
    const all = await run(doc({ ...base, m: ["list.merge", { dedupe: "none" }] }, edges));
    expect((all.byId.m!.outputs!.items as unknown[]).length).toBe(5);
  });

  it("dedupes items without ids by value", async () => {
    const d = doc({ a: ["test.any", { value: [1, 2, 2] }], b: ["test.any", { value: [2, 3] }], m: ["list.merge"] }, ["a.out->m.lists", "b.out->m.lists"]);
    const r = await run(d);
    expect(r.byId.m!.outputs!.items).toEqual([1, 2, 3]);
  });
});

describe("list.select", () => {
  const items = [
    { id: "a", year: 2019, scores: { rerank: 0.2 } },
    { id: "b", year: 2021, scores: { rerank: 0.9 } },
    { id: "c", year: 2023, scores: {} },
    { id: "d", year: 2022, scores: { rerank: 0.5 } },
  ];
  const sel = async (params: Record<string, unknown>) => {
    const r = await run(doc({ src: ["test.any", { value: items }], s: ["list.select", params] }, ["src.out->s.items"]));
    expect(r.byId.s!.status, JSON.stringify(r.byId.s!.error)).toBe("done");
    return (r.byId.s!.outputs!.items as Array<{ id: string }>).map((x) => x.id);
  };

  it("sorts by a score path, missing values last", async () => {
    expect(await sel({ sortBy: "scores.rerank" })).toEqual(["b", "d", "a", "c"]);
    expect(await sel({ sortBy: "scores.rerank", order: "asc" })).toEqual(["a", "d", "b", "c"]);
  });

  it("filters, then offsets and limits", async () => {
    expect(await sel({ where: [{ path: "year", op: "gte", value: 2021 }] })).toEqual(["b", "c", "d"]);
    expect(await sel({ where: [{ path: "scores.rerank", op: "exists" }], offset: 1, limit: 1 })).toEqual(["b"]);
    expect(await sel({ where: [{ path: "id", op: "ne", value: "a" }], sortBy: "year", limit: 2 })).toEqual(["c", "d"]);
  });
});

describe("text.template", () => {
  it("renders a prompt from a question and passages", async () => {
    const d = doc(
      {
        q: ["input.question"],
        p: passages(["7#0", "8#1"], "bm25"),
        t: ["text.template", { template: "Question: {{question.text}}\n{{#each passages}}[{{@number}}] {{title}} — {{text}}\n{{/each}}" }],
      },
      ["q.question->t.question", "p.passages->t.passages"],
      { question: { type: "Question" } },
    );
    const r = await run(d, { inputs: { question: { id: "x", text: "Does X cause Y?" } } });
    expect(r.byId.t!.outputs!.text).toBe("Question: Does X cause Y?\n[1] T7#0 — text 7#0\n[2] T8#1 — text 8#1");
  });

  it("fails the node, naming the variable, when an input it uses is not connected", async () => {
    const r = await run(doc({ t: ["text.template", { template: "{{question.text}}" }] }));
    expect(r.byId.t!.status).toBe("error");
    expect(r.byId.t!.error!.message).toMatch(/template variable "question.text" is undefined/);
  });
});
