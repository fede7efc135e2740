import { json, loopback, type Loopback } from "../models/loopback.js";

/**
 * A loopback Qdrant: the REST shapes of the calls Citeflow's Qdrant store makes (Qdrant's OpenAPI
 * schema, as @qdrant/js-client-rest sends and reads them), held in memory. Sparse search scores as
 * Qdrant documents its `modifier: "idf"` (Σ idf·query·document weight, idf = ln(1 + (N − n + 0.5) /
 * (n + 0.5)) over the points that have the sparse vector). What a test sets: the cluster's peers,
 * the collection's shard states, and a failing search (500, as a lost shard answers).
 */
export interface FakeQdrant extends Loopback {
  collections: Map<string, Collection>;
  /** Peers in the cluster (1: the server runs alone, cluster disabled). */
  peers: number;
  /** Searches answer 500 with this error while it is set. */
  failSearches?: string;
  /** What GET /collections/{name}/cluster answers. */
  shards?: { peer_id: number; shard_count: number; local_shards: Array<{ shard_id: number; state: string }>; remote_shards: Array<{ shard_id: number; peer_id: number; state: string }> };
}

interface Point {
  id: string;
  vector: Record<string, number[] | { indices: number[]; values: number[] }>;
  payload: Record<string, unknown>;
}

interface Collection {
  config: Record<string, unknown>;
  points: Map<string, Point>;
  /** Payload indexes made on it: field → schema. */
  indexes: Map<string, string>;
}

type Filter = { must?: Array<Record<string, any>>; must_not?: Array<Record<string, any>> };

/** A payload field by Qdrant's dotted key ("metadata.year" reads payload.metadata.year). */
const field = (p: Point, key: string): unknown => key.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), p.payload);

function matches(p: Point, f: Filter | undefined): boolean {
  const inRange = (v: unknown, r: { gte?: number; lte?: number }) => typeof v === "number" && (r.gte === undefined || v >= r.gte) && (r.lte === undefined || v <= r.lte);
  const one = (c: Record<string, any>) =>
    c.has_id ? c.has_id.includes(p.id) : c.range ? inRange(field(p, c.key), c.range) : c.match?.any ? c.match.any.includes(field(p, c.key)) : field(p, c.key) === c.match?.value;
  return (f?.must ?? []).every(one) && !(f?.must_not ?? []).some(one);
}

const pick = (p: Point, withPayload: unknown) =>
  withPayload === true ? p.payload : Array.isArray(withPayload) ? Object.fromEntries(withPayload.filter((k) => k in p.payload).map((k) => [k, p.payload[k]])) : undefined;

function sparseScores(c: Collection, using: string, q: { indices: number[]; values: number[] }): Array<[Point, number]> {
  const withVector = [...c.points.values()].filter((p) => p.vector[using] && !Array.isArray(p.vector[using]));
  const n = withVector.length;
  const df = (i: number) => withVector.filter((p) => (p.vector[using] as { indices: number[] }).indices.includes(i)).length;
  const idf = new Map(q.indices.map((i) => [i, Math.log(1 + (n - df(i) + 0.5) / (df(i) + 0.5))]));
  return withVector
    .map((p): [Point, number] => {
      const d = p.vector[using] as { indices: number[]; values: number[] };
      return [p, q.indices.reduce((s, i, k) => (d.indices.includes(i) ? s + idf.get(i)! * q.values[k]! * d.values[d.indices.indexOf(i)]! : s), 0)];
    })
    .filter(([, s]) => s > 0);
}

function denseScores(c: Collection, using: string, q: number[]): Array<[Point, number]> {
  const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return [...c.points.values()]
    .filter((p) => Array.isArray(p.vector[using]))
    .map((p) => {
      const v = p.vector[using] as number[];
      return [p, v.reduce((a, x, i) => a + x * q[i]!, 0) / (norm(v) * norm(q))];
    });
}

export async function fakeQdrant(): Promise<FakeQdrant> {
  const collections = new Map<string, Collection>();
  const ok = (res: Parameters<typeof json>[0], result: unknown) => json(res, 200, { result, status: "ok", time: 0 });
  const self: FakeQdrant = Object.assign(
    await loopback((req, res) => {
      const url = new URL(req.path, "http://x");
      const parts = url.pathname.split("/").filter(Boolean);
      if (req.method === "GET" && url.pathname === "/cluster")
        return ok(
          res,
          self.peers > 1
            ? { status: "enabled", peer_id: 1, peers: Object.fromEntries(Array.from({ length: self.peers }, (_, i) => [String(i + 1), { uri: `http://peer${i + 1}:6335/` }])) }
            : { status: "disabled" },
        );
      if (parts[0] !== "collections" || !parts[1]) return json(res, 404, { status: { error: `no route ${req.path}` } });
      const name = parts[1];
      const c = collections.get(name);
      const rest = parts.slice(2).join("/");
      const body = req.body ?? {};
      if (req.method === "GET" && rest === "exists") return ok(res, { exists: !!c });
      if (req.method === "PUT" && rest === "") {
        collections.set(name, { config: body, points: new Map(), indexes: new Map() });
        return ok(res, true);
      }
      if (!c) return json(res, 404, { status: { error: `Not found: Collection \`${name}\` doesn't exist!` }, time: 0 });
      if (req.method === "GET" && rest === "cluster")
        return ok(res, self.shards ?? { peer_id: 1, shard_count: 1, local_shards: [{ shard_id: 0, state: "Active" }], remote_shards: [], shard_transfers: [] });
      if (req.method === "PUT" && rest === "index") {
        c.indexes.set(body.field_name, body.field_schema);
        return ok(res, { operation_id: 0, status: "completed" });
      }
      if (req.method === "PUT" && rest === "points") {
        for (const p of body.points) c.points.set(String(p.id), { id: String(p.id), vector: p.vector, payload: p.payload ?? {} });
        return ok(res, { operation_id: 0, status: "completed" });
      }
      if (req.method === "PUT" && rest === "points/vectors") {
        for (const p of body.points) {
          const old = c.points.get(String(p.id));
          if (old) old.vector = { ...old.vector, ...p.vector };
        }
        return ok(res, { operation_id: 0, status: "completed" });
      }
      if (req.method === "POST" && rest === "points/delete") {
        for (const p of [...c.points.values()]) if (matches(p, body.filter)) c.points.delete(p.id);
        return ok(res, { operation_id: 0, status: "completed" });
      }
      if (req.method === "POST" && rest === "points")
        return ok(
          res,
          body.ids.flatMap((id: string) => {
            const p = c.points.get(String(id));
            return p ? [{ id: p.id, payload: pick(p, body.with_payload) }] : [];
          }),
        );
      if (req.method === "POST" && rest === "points/count") return ok(res, { count: [...c.points.values()].filter((p) => matches(p, body.filter)).length });
      if (req.method === "POST" && rest === "points/scroll") {
        const all = [...c.points.values()].filter((p) => matches(p, body.filter)).sort((a, b) => a.id.localeCompare(b.id));
        const start = body.offset ? all.findIndex((p) => p.id === body.offset) : 0;
        const page = all.slice(start, start + body.limit);
        return ok(res, { points: page.map((p) => ({ id: p.id, payload: pick(p, body.with_payload) })), next_page_offset: all[start + body.limit]?.id ?? null });
      }
      if (req.method === "POST" && rest === "points/query") {
        if (self.failSearches) return json(res, 500, { status: { error: self.failSearches }, time: 0 });
        const q = body.query;
        if (!q || q.fusion) return json(res, 400, { status: { error: "the loopback Qdrant scores sparse and dense queries only" }, time: 0 });
        const scored = Array.isArray(q) ? denseScores(c, body.using, q) : sparseScores(c, body.using, q);
        scored.sort((a, b) => b[1] - a[1]);
        return ok(res, { points: scored.slice(0, body.limit).map(([p, score]) => ({ id: p.id, version: 0, score, payload: pick(p, body.with_payload) })) });
      }
      return json(res, 404, { status: { error: `no route ${req.method} ${req.path}` }, time: 0 });
    }),
    { collections, peers: 1 },
  );
  return self;
}
