import { defineNode } from "@citeflow/core";
import { z } from "zod";

const Condition = z.strictObject({
  path: z.string().min(1).describe('Dotted path into each item, e.g. "metadata.year" or "scores.rerank"'),
  op: z.enum(["eq", "ne", "gt", "gte", "lt", "lte", "contains", "exists"]),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
});

export const listSelect = defineNode({
  type: "list.select",
  version: 1,
  title: "Select / limit",
  family: "list",
  description: "Filters, sorts and cuts a list: where → sort → offset/limit.",
  inputs: { items: { type: "T[]" } },
  outputs: { items: { type: "T[]" } },
  params: z.object({
    where: z.array(Condition).default([]).describe("Keep items meeting every condition"),
    sortBy: z.string().optional().describe('Dotted path to sort on, e.g. "scores.fused"; items without it go last'),
    order: z.enum(["desc", "asc"]).default("desc"),
    offset: z.number().int().nonnegative().default(0).describe("Skip this many items"),
    limit: z.number().int().positive().optional().describe("Keep at most this many items (all when unset)"),
  }),
  async run(inputs, params) {
    let items = inputs.items.filter((item) => params.where.every((c) => test(get(item, c.path), c)));
    if (params.sortBy !== undefined) {
      const path = params.sortBy;
      const sign = params.order === "desc" ? -1 : 1;
      // Stable sort: equal keys keep their incoming order.
      items = items
        .map((item, i) => ({ item, i, key: get(item, path) }))
        .sort((a, b) => {
          const ma = a.key === undefined || a.key === null;
          const mb = b.key === undefined || b.key === null;
          if (ma || mb) return ma === mb ? a.i - b.i : ma ? 1 : -1;
          const [x, y] = [sortKey(a.key), sortKey(b.key)];
          const c = x < y ? -1 : x > y ? 1 : 0;
          return c * sign || a.i - b.i;
        })
        .map((x) => x.item);
    }
    const end = params.limit === undefined ? undefined : params.offset + params.limit;
    return { items: items.slice(params.offset, end) };
  },
});

/** Numbers sort as numbers, everything else by its text. */
const sortKey = (v: unknown): number | string => (typeof v === "number" ? v : String(v));

function get(item: unknown, path: string): unknown {
  let v: unknown = item;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined;
    v = Object.getOwnPropertyDescriptor(v, key)?.value;
  }
  return v;
}

function test(v: unknown, c: z.infer<typeof Condition>): boolean {
  switch (c.op) {
    case "exists":
      return v !== undefined && v !== null;
    case "eq":
      return v === c.value;
    case "ne":
      return v !== c.value;
    case "contains":
      return typeof v === "string" ? v.toLowerCase().includes(String(c.value).toLowerCase()) : Array.isArray(v) && v.includes(c.value);
    default: {
      const [a, b] = [v, c.value];
      if (typeof a !== typeof b || (typeof a !== "number" && typeof a !== "string") || (typeof b !== "number" && typeof b !== "string")) return false;
      return c.op === "gt" ? a > b : c.op === "gte" ? a >= b : c.op === "lt" ? a < b : a <= b;
    }
  }
}
