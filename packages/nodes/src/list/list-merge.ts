import { canonicalJson, defineNode } from "@citeflow/core";
import { z } from "zod";

export const listMerge = defineNode({
  type: "list.merge",
  version: 1,
  title: "Merge lists",
  family: "list",
  description: "Merges lists of the same type (e.g. passages from several retrievers), removing duplicates.",
  inputs: { lists: { type: "T[]", many: true, description: "Any number of lists of one type" } },
  outputs: { items: { type: "T[]" } },
  params: z.object({
    mode: z.enum(["concat", "interleave"]).default("concat").describe("concat: list after list; interleave: round-robin, first of each list first"),
    dedupe: z.enum(["id", "value", "none"]).default("id").describe('id: items with the same "id" are one (their "scores" records are merged); value: identical items are one; none: keep all'),
  }),
  async run(inputs, params) {
    const lists = inputs.lists;
    const ordered: unknown[] = [];
    if (params.mode === "concat") for (const l of lists) ordered.push(...l);
    else for (let i = 0, n = Math.max(0, ...lists.map((l) => l.length)); i < n; i++) for (const l of lists) if (i < l.length) ordered.push(l[i]);
    if (params.dedupe === "none") return { items: ordered };

    const byKey = new Map<string, unknown>();
    for (const item of ordered) {
      const id = params.dedupe === "id" ? idOf(item) : undefined;
      const key = id !== undefined ? `id:${id}` : `v:${canonicalJson(item)}`;
      const prev = byKey.get(key);
      if (prev === undefined) byKey.set(key, item);
      else if (id !== undefined) byKey.set(key, mergeScores(prev, item));
    }
    return { items: [...byKey.values()] };
  },
});

function idOf(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null || !("id" in item)) return undefined;
  return typeof item.id === "string" || typeof item.id === "number" ? String(item.id) : undefined;
}

const scoresOf = (item: unknown): object | undefined =>
  typeof item === "object" && item !== null && "scores" in item && typeof item.scores === "object" && item.scores !== null ? item.scores : undefined;

/** The first occurrence wins, but it gains every score the later ones carry (bm25 + dense, …). */
function mergeScores(first: unknown, later: unknown): unknown {
  const a = scoresOf(first);
  const b = scoresOf(later);
  if (!a || !b || typeof first !== "object") return first;
  return { ...first, scores: { ...b, ...a } };
}
