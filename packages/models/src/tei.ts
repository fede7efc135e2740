import { withoutCredentials } from "@citeflow/core";
import { NLI_LABELS, type NliLabel, type NliModel, type NliProbabilities, type Reranker } from "./interfaces.js";
import { nliLabelOf } from "./labels.js";
import { serverFetch } from "./server-fetch.js";

/**
 * Encoders served by Hugging Face text-embeddings-inference (TEI), named `tei:<url>`
 * (`$CITEFLOW_NLI_MODEL=tei:http://127.0.0.1:8080`): `GET /info` says what the server runs (its
 * model, revision, labels, how many inputs a request may carry); an NLI model's pairs go to
 * `POST /predict` and a reranker's to `POST /rerank`, in batches of the server's
 * `max_client_batch_size`, through the same per-server budget as served chat models
 * (`serverFetch`: concurrency, tokens per minute, the 429 hold, a deadline over the whole reply, a
 * size bound). Every reply is checked: the wrong number of scores, a score that is not a number,
 * or a label the model does not have is an error naming the server and the batch.
 */

export const TEI_PREFIX = "tei:";

/** The server a `tei:<url>` model name points at, or undefined for any other name. */
export function teiServer(name: string): string | undefined {
  if (!name.startsWith(TEI_PREFIX)) return undefined;
  const url = name.slice(TEI_PREFIX.length).replace(/\/+$/, "");
  if (!/^https?:\/\//.test(url)) throw new Error(`model "${name}": give tei:http(s)://host:port`);
  return url;
}

export interface TeiOptions {
  /** Sent as a Bearer token (TEI's --api-key); only ever to this server. */
  apiKey?: string | undefined;
  /** One request, its reply read to the end. Default 60 000. */
  timeoutMs?: number | undefined;
  /** Tries on 429 (after the server's Retry-After hold) and 503 (loading). Default 3. */
  retries?: number | undefined;
}

/** What `GET /info` says, as Citeflow uses it. */
export interface TeiInfo {
  modelId: string;
  /** The model's revision (`model_sha`), part of every cache key of the model. */
  revision: string | null;
  kind: "classifier" | "reranker" | "embedding";
  id2label: Record<string, string>;
  /** Inputs a request may carry. */
  batch: number;
}

/** One encoder server's requests (TEI's, or vLLM's for `engine`), with its errors worded once. */
class TeiClient {
  readonly #fetch: typeof fetch;
  constructor(
    readonly url: string,
    private readonly o: TeiOptions,
    readonly engine = "TEI",
  ) {
    this.#fetch = serverFetch(url, fetch, o.timeoutMs ?? 60_000);
  }

  get shown(): string {
    return withoutCredentials(this.url);
  }

  async request(method: "GET" | "POST", path: string, body: unknown, what: string): Promise<unknown> {
    const headers: Record<string, string> = { "content-type": "application/json", ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}) };
    const retries = this.o.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      let text: string;
      try {
        res = await this.#fetch(`${this.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        text = await res.text();
      } catch (e) {
        throw new Error(`${this.engine} server at ${this.shown}: ${method} ${path} (${what}) failed: ${(e as Error).message}`, { cause: e });
      }
      if (res.ok)
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new Error(`${this.engine} server at ${this.shown}: ${method} ${path} (${what}) answered something that is not JSON`);
        }
      // 429: serverFetch holds every request to this server for its Retry-After; 503: the model is still loading.
      if ((res.status === 429 || res.status === 503) && attempt < retries) {
        if (res.status === 503) await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      let detail = text.slice(0, 200);
      try {
        // TEI: {error, error_type}; vLLM: {error: {message}} or {message}.
        const body = JSON.parse(text) as { error?: unknown; message?: unknown };
        const error = body.error as { message?: unknown } | string | undefined;
        detail = String((typeof error === "object" && error !== null ? error.message : error) ?? body.message ?? detail);
      } catch {
        // not JSON: the text as it came
      }
      throw new Error(
        `${this.engine} server at ${this.shown}: ${method} ${path} (${what}) answered HTTP ${res.status}${detail ? ` — ${detail}` : ""}${res.status === 413 ? " (the batch is larger than the server takes: start it with a larger --max-client-batch-size)" : ""}`,
      );
    }
  }

  async info(): Promise<TeiInfo> {
    const raw = (await this.request("GET", "/info", undefined, "what it serves")) as Record<string, unknown>;
    const type = (raw.model_type ?? {}) as Record<string, { id2label?: Record<string, string> } | undefined>;
    const kind = (["classifier", "reranker", "embedding"] as const).find((k) => type[k] !== undefined);
    if (typeof raw.model_id !== "string" || !kind) throw new Error(`TEI server at ${this.shown}: GET /info does not say which model it serves (model_id, model_type)`);
    const batch = Number(raw.max_client_batch_size);
    return {
      modelId: raw.model_id,
      revision: typeof raw.model_sha === "string" ? raw.model_sha : null,
      kind,
      id2label: kind === "embedding" ? {} : (type[kind]!.id2label ?? {}),
      batch: Number.isInteger(batch) && batch > 0 ? batch : 32,
    };
  }
}

/** Runs `f` on consecutive batches of `size` and joins the results; each batch is named "batch i of n" in errors. */
async function inBatches<T, R>(items: T[], size: number, signal: AbortSignal | undefined, f: (batch: T[], what: string) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  const n = Math.ceil(items.length / size);
  for (let i = 0; i < n; i++) {
    signal?.throwIfAborted();
    const batch = items.slice(i * size, (i + 1) * size);
    const got = await f(batch, `batch ${i + 1} of ${n}, ${batch.length} inputs`);
    out.push(...got);
  }
  return out;
}

/** An NLI model served by TEI (a sequence-pair classifier): its labels from `/info`, mapped onto SUPPORT / NO_EVIDENCE / CONTRADICT, or refused. */
export async function teiNli(url: string, o: TeiOptions = {}): Promise<NliModel & { revision: string | null; served: string; runs: string }> {
  const client = new TeiClient(url, o);
  const info = await client.info();
  if (info.kind !== "classifier") throw new Error(`TEI server at ${client.shown} serves ${info.modelId} as a ${info.kind}, not a sequence classifier: it cannot be an NLI model`);
  const labels = Object.values(info.id2label);
  const mapped = new Map(labels.map((l) => [l, nliLabelOf(l)]));
  const missing = NLI_LABELS.filter((l) => ![...mapped.values()].includes(l));
  if (missing.length || [...mapped.values()].some((m) => m === undefined))
    throw new Error(`TEI server at ${client.shown} serves ${info.modelId}, whose labels (${labels.join(", ") || "none"}) do not map onto SUPPORT / NO_EVIDENCE / CONTRADICT`);
  // A SciFact-style model (SUPPORT / CONTRADICT …) reads the claim first; an MNLI-style one the premise first.
  const claimFirst = labels.some((l) => /^support/i.test(l));
  const id = `tei:${client.shown}`;
  return {
    id,
    revision: info.revision,
    runs: info.modelId.replace(/\/+$/, "").split("/").slice(-2).join("/"),
    served: `${info.modelId}${info.revision ? ` (revision ${info.revision})` : ""} on the TEI server at ${client.shown}`,
    classify: (pairs, opts) =>
      inBatches(pairs, info.batch, opts?.signal, async (batch, what) => {
        const inputs = batch.map((p) => (claimFirst ? [p.hypothesis, p.premise] : [p.premise, p.hypothesis]));
        const raw = await client.request("POST", "/predict", { inputs, truncate: true }, what);
        if (!Array.isArray(raw) || raw.length !== batch.length)
          throw new Error(`TEI server at ${client.shown}: POST /predict (${what}) answered ${Array.isArray(raw) ? raw.length : "no list of"} predictions for ${batch.length} pairs`);
        return raw.map((scores, i) => {
          const out: NliProbabilities = { SUPPORT: 0, NO_EVIDENCE: 0, CONTRADICT: 0 };
          for (const s of Array.isArray(scores) ? (scores as Array<{ label?: unknown; score?: unknown }>) : []) {
            const label = typeof s.label === "string" ? (mapped.get(s.label) as NliLabel | undefined) : undefined;
            if (!label || typeof s.score !== "number" || !Number.isFinite(s.score))
              throw new Error(`TEI server at ${client.shown}: POST /predict (${what}) answered ${JSON.stringify(s).slice(0, 80)} for pair ${i + 1}: not a score of one of the model's labels`);
            out[label] += s.score;
          }
          return out;
        });
      }),
  };
}

/** A reranker served by TEI (`/rerank`: one relevance score a passage). */
export async function teiReranker(url: string, o: TeiOptions = {}): Promise<Reranker & { revision: string | null; served: string }> {
  const client = new TeiClient(url, o);
  const info = await client.info();
  if (info.kind !== "reranker") throw new Error(`TEI server at ${client.shown} serves ${info.modelId} as a ${info.kind}, not a reranker (a classifier with one output)`);
  return {
    id: `tei:${client.shown}`,
    revision: info.revision,
    served: `${info.modelId}${info.revision ? ` (revision ${info.revision})` : ""} on the TEI server at ${client.shown}`,
    score: (query, passages, opts) =>
      inBatches(passages, info.batch, opts?.signal, async (batch, what) => {
        const raw = await client.request("POST", "/rerank", { query, texts: batch, truncate: true, raw_scores: true }, what);
        const scores = new Array<number>(batch.length).fill(Number.NaN);
        for (const r of Array.isArray(raw) ? (raw as Array<{ index?: unknown; score?: unknown }>) : [])
          if (Number.isInteger(r.index) && (r.index as number) >= 0 && (r.index as number) < batch.length && typeof r.score === "number") scores[r.index as number] = r.score;
        const bad = scores.findIndex((s) => !Number.isFinite(s));
        if (!Array.isArray(raw) || raw.length !== batch.length || bad >= 0)
          throw new Error(`TEI server at ${client.shown}: POST /rerank (${what}) answered ${Array.isArray(raw) ? `${raw.length} ranks` : "no list of ranks"} without a score for text ${bad + 1}`);
        return scores;
      }),
  };
}

export const VLLM_PREFIX = "vllm:";

/** The server and model a `vllm:<url>/<model>` name points at (the model after the server's address, as `vllm serve` names it), or undefined for any other name. */
export function vllmServer(name: string): { url: string; model: string } | undefined {
  if (!name.startsWith(VLLM_PREFIX)) return undefined;
  const m = /^(https?:\/\/[^/]+)\/(.+)$/.exec(name.slice(VLLM_PREFIX.length));
  if (!m) throw new Error(`model "${name}": give vllm:http(s)://host:port/<model>, the model as vllm serve names it`);
  return { url: m[1]!, model: m[2]! };
}

/**
 * A reranker served by vLLM (`vllm serve <cross-encoder>`), through its rerank API (`POST
 * /v1/rerank`, the Jina/Cohere shape: `{model, query, documents}` → `{results: [{index,
 * relevance_score}]}`), in batches of `batch` documents, under the same budget and checks as TEI.
 */
export async function vllmReranker(url: string, model: string, o: TeiOptions & { batch?: number } = {}): Promise<Reranker & { revision: null; served: string }> {
  const client = new TeiClient(url, o, "vLLM");
  return {
    id: `vllm:${client.shown}/${model}`,
    revision: null,
    served: `${model} on the vLLM server at ${client.shown}`,
    score: (query, passages, opts) =>
      inBatches(passages, o.batch ?? 32, opts?.signal, async (batch, what) => {
        const raw = (await client.request("POST", "/v1/rerank", { model, query, documents: batch }, what)) as { results?: unknown } | null;
        const results = raw && Array.isArray(raw.results) ? (raw.results as Array<{ index?: unknown; relevance_score?: unknown }>) : undefined;
        const scores = new Array<number>(batch.length).fill(Number.NaN);
        for (const r of results ?? [])
          if (Number.isInteger(r.index) && (r.index as number) >= 0 && (r.index as number) < batch.length && typeof r.relevance_score === "number") scores[r.index as number] = r.relevance_score;
        const bad = scores.findIndex((s) => !Number.isFinite(s));
        if (!results || results.length !== batch.length || bad >= 0)
          throw new Error(`vLLM server at ${client.shown}: POST /v1/rerank (${what}) answered ${results ? `${results.length} results` : "no results list"} without a score for document ${bad + 1}`);
        return scores;
      }),
  };
}

/** The server a served encoder's name (`tei:<url>`, `vllm:<url>/<model>`) sends to, as written — for listing what a graph reaches; never throws. */
export function encoderServer(name: string): string | undefined {
  if (name.startsWith(TEI_PREFIX)) return name.slice(TEI_PREFIX.length).replace(/\/+$/, "");
  if (name.startsWith(VLLM_PREFIX)) return /^https?:\/\/[^/]+/.exec(name.slice(VLLM_PREFIX.length))?.[0] ?? name.slice(VLLM_PREFIX.length);
  return undefined;
}
