import {
  AutoConfig,
  AutoModelForSequenceClassification,
  AutoTokenizer,
  env,
  pipeline,
  type FeatureExtractionPipeline,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from "@huggingface/transformers";
import { NLI_LABELS, type Embedder, type NliLabel, type NliModel, type NliProbabilities, type Reranker } from "./interfaces.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { nliLabelOf } from "./labels.js";
import { resolveModel, type ModelLocation, type ResolveOptions } from "./resolve.js";
import { checkModelJson, ONNX_MODEL_FILES, verifyModelFiles } from "./sums.js";

export type Dtype = "fp32" | "q8";

export interface LocalModelOptions extends ResolveOptions {
  /**
   * NLI only: which text is segment A. MNLI-style models (entailment/neutral/contradiction) take the
   * premise first; SciFact-style ones (SUPPORT/NO_EVIDENCE/CONTRADICT) the claim first. Default: by labels.
   */
  pairOrder?: "premise-first" | "claim-first";
  /** fp32 (onnx/model.onnx) or q8 (onnx/model_quantized.onnx). Default fp32. */
  dtype?: Dtype;
  /** Texts or pairs per forward pass. Default 32, or 1 for a graph that quantizes its activations as it runs (batchOf). */
  batchSize?: number;
}

/**
 * ONNX Runtime's session settings for an embedder: its intra-op threads sleep when a run ends instead of spinning for
 * the next one. A question set embeds one query at a time between other work, and the spinning thread burned more CPU
 * than the embedding: Verif.ai over 300 questions with its encoders served (bench/served.mjs' setting), 0.109 → 0.084
 * CPU seconds a question, the thread beside the main one 5.0 → 1.0 s; ingest's batches lost nothing (13.8 passages/s
 * against 12.3). The pair models (NLI, reranker) keep ONNX Runtime's default: their batches come back to back, and
 * Verif.ai with them in-process ran 200 questions in 99 s spinning against 110 s not (0.95 against 0.88 CPU s a question).
 */
const EMBEDDER_SESSION = { extra: { session: { intra_op: { allow_spinning: "0" } } } };

// transformers.js keeps its file settings in one global `env`: loads are serialised so each one
// sees the folder it resolved to. A local model's files are checked against its sums first.
let loading: Promise<unknown> = Promise.resolve();
function withEnv<T>(id: string, options: LocalModelOptions, load: (where: ModelLocation) => Promise<T>): Promise<T> {
  const next = loading.then(async () => {
    const where = resolveModel(id, { ...options, cacheDir: options.cacheDir ?? env.cacheDir ?? undefined });
    if (where.localDir) {
      verifyModelFiles(join(where.localDir, id), ONNX_MODEL_FILES, true);
      checkModelJson(join(where.localDir, id));
    }
    env.allowLocalModels = true;
    env.allowRemoteModels = where.remote;
    if (where.localDir) env.localModelPath = where.localDir.endsWith("/") ? where.localDir : `${where.localDir}/`;
    return load(where);
  });
  loading = next.catch(() => undefined);
  return next;
}

/**
 * Runs `f` over the items in batches of similar length and returns its results in the items' order.
 * A batch is padded to its longest item, so the items go longest first, and a batch ends when it
 * holds `size` or when the next item is under three quarters of its longest (a quarter of its
 * tokens would be padding). `length`: an item's length in characters, a stand-in for its tokens.
 * Measured on `verify.nli`'s 3 × 10 (claim, sentence) pairs: 221 ms in batches of 32, 187 ms with
 * the cut at half, 123 ms at three quarters (the 2-core machine; `eval.citations`' premises fill the
 * NLI model's 128 tokens either way, 220 ms).
 */
async function byLength<T, R>(items: T[], length: (item: T) => number, size: number, signal: AbortSignal | undefined, f: (batch: T[]) => Promise<R[]>): Promise<R[]> {
  const order = items.map((_, i) => i).sort((a, b) => length(items[b]!) - length(items[a]!));
  const out: R[] = new Array(items.length);
  for (let i = 0; i < order.length;) {
    signal?.throwIfAborted();
    const longest = length(items[order[i]!]!);
    let j = i + 1;
    while (j < order.length && j - i < size && 4 * length(items[order[j]!]!) >= 3 * longest) j++;
    const batch = order.slice(i, j);
    const results = await f(batch.map((k) => items[k]!));
    batch.forEach((k, n) => (out[k] = results[n]!));
    i = j;
  }
  return out;
}

function rows(t: Tensor): number[][] {
  const [n, d] = t.dims as [number, number];
  const data = t.data as Float32Array;
  return Array.from({ length: n }, (_, i) => Array.from(data.subarray(i * d, (i + 1) * d)));
}

/**
 * Mean-pooled, normalised sentence embeddings from a feature-extraction model. Texts are batched
 * by length (less padding per forward pass) and pooled here over the attention mask, then
 * returned in the order given.
 */
export async function loadEmbedder(id: string, options: LocalModelOptions): Promise<Embedder> {
  let batchSize = 32;
  const extractor = (await withEnv(id, options, (where) => {
    const dtype = localDtype(id, where, options.dtype);
    batchSize = batchOf(id, where, dtype, options.batchSize);
    return pipeline("feature-extraction", id, { dtype, session_options: EMBEDDER_SESSION });
  })) as FeatureExtractionPipeline;
  const forward = async (batch: string[]): Promise<number[][]> => {
    const inputs = extractor.tokenizer(batch, { padding: true, truncation: true });
    const out = (await extractor.model(inputs)) as { last_hidden_state?: Tensor; token_embeddings?: Tensor };
    const hidden = out.last_hidden_state ?? out.token_embeddings;
    if (!hidden) throw new Error(`embedder "${id}": the model gives neither last_hidden_state nor token_embeddings`);
    return meanPoolNormalised(hidden, inputs.attention_mask as Tensor);
  };
  return {
    id,
    embed: (texts, o) => byLength(texts, (t) => t.length, batchSize, o?.signal, forward),
  };
}

/** Σ over unmasked tokens ÷ their count, then scaled to unit length (a zero vector stays zero). */
export function meanPoolNormalised(hidden: Tensor, mask: Tensor): number[][] {
  const [n, len, dim] = hidden.dims as [number, number, number];
  const h = hidden.data as Float32Array;
  const m = mask.data as BigInt64Array | Int32Array | Float32Array;
  const out: number[][] = [];
  const sum = new Float64Array(dim);
  for (let b = 0; b < n; b++) {
    sum.fill(0);
    let tokens = 0;
    for (let t = 0; t < len; t++) {
      if (!Number(m[b * len + t])) continue;
      tokens++;
      const off = (b * len + t) * dim;
      for (let d = 0; d < dim; d++) sum[d] = sum[d]! + h[off + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += (sum[d]! / Math.max(tokens, 1)) ** 2;
    const scale = norm > 0 ? 1 / (Math.sqrt(norm) * Math.max(tokens, 1)) : 0;
    out.push(Array.from(sum, (v) => v * scale));
  }
  return out;
}

/**
 * The precision a model is loaded in: the one asked for, except that a local model folder holding
 * only int8 weights (onnx/model_quantized.onnx, as the models Citeflow trains ship) is loaded in q8.
 */
function localDtype(id: string, where: ModelLocation, asked: Dtype = "fp32"): Dtype {
  if (asked !== "fp32" || !where.localDir) return asked;
  const onnx = join(where.localDir, id, "onnx");
  return !existsSync(join(onnx, "model.onnx")) && existsSync(join(onnx, "model_quantized.onnx")) ? "q8" : asked;
}

/**
 * Texts or pairs a forward pass takes: `asked`, else 32, or 1 for a model whose graph quantizes its activations as it
 * runs (ONNX Runtime's dynamic quantization: DynamicQuantizeLinear, as `citeflow train`'s int8 files do). Such a graph
 * scales each layer's activations by the whole batch's range, so within a batch a pair's scores depend on the pairs
 * beside it: with Citeflow's NLI model, 30 of 1,584 held-out claim–sentence pairs changed label between their batch of
 * 32 and alone (a probability by up to 0.70), where fp32 weights gave the same to the last digit. One at a time, a
 * verdict is the pair's own, whatever else the node verifies, and a cached verdict is the one computed again
 * (bench/batching.mjs).
 */
function batchOf(id: string, where: ModelLocation, dtype: Dtype, asked?: number): number {
  if (asked !== undefined) return asked;
  // Only a quantized file can quantize as it runs: an fp32 graph (the default embedder's, 90 MB) is not read again here.
  const file = dtype === "q8" && where.localDir ? join(where.localDir, id, "onnx", "model_quantized.onnx") : undefined;
  return file && existsSync(file) && readFileSync(file).includes("DynamicQuantizeLinear") ? 1 : 32;
}

async function loadPairModel(id: string, options: LocalModelOptions): Promise<{ tokenizer: PreTrainedTokenizer; model: PreTrainedModel; batchSize: number }> {
  // Pairs go through the tokenizer's text_pair: the text-classification pipeline drops the pair.
  return withEnv(id, options, async (where) => {
    const dtype = localDtype(id, where, options.dtype);
    return {
      tokenizer: await AutoTokenizer.from_pretrained(id),
      model: await AutoModelForSequenceClassification.from_pretrained(id, { dtype }),
      batchSize: batchOf(id, where, dtype, options.batchSize),
    };
  });
}

async function pairLogits(m: { tokenizer: PreTrainedTokenizer; model: PreTrainedModel }, a: string[], b: string[]): Promise<number[][]> {
  const inputs = m.tokenizer(a, { text_pair: b, padding: true, truncation: true });
  const { logits } = (await m.model(inputs)) as { logits: Tensor };
  return rows(logits);
}

/** What a model's config says about how it reranks (`citeflow train rerank` writes it). */
interface RerankerConfig {
  citeflow_reranker?: { kind?: string; lexicalWeight?: number };
}

/**
 * A reranker. A cross-encoder (a sequence classifier) scores each (query, passage) pair in one
 * forward pass: the relevance logit. A sentence encoder marked `citeflow_reranker.kind: "encoder"`
 * in its config (what `citeflow train rerank` makes) scores the cosine of the query's and the
 * passage's mean-pooled embeddings, and says which lexical weight it was meant to be fused with.
 */
export async function loadReranker(id: string, options: LocalModelOptions): Promise<Reranker> {
  const config = (await withEnv(id, options, () => AutoConfig.from_pretrained(id))) as unknown as RerankerConfig;
  const marked = config.citeflow_reranker;
  if (marked?.kind === "encoder") {
    const encoder = await loadEmbedder(id, options);
    return {
      id,
      ...(typeof marked.lexicalWeight === "number" ? { lexicalWeight: marked.lexicalWeight } : {}),
      score: async (query, passages, o) => {
        const [q, ...vs] = await encoder.embed([query, ...passages], o);
        return vs.map((v) => v.reduce((s, x, i) => s + x * q![i]!, 0));
      },
    };
  }
  const m = await loadPairModel(id, options);
  const batchSize = m.batchSize;
  // One logit: the score. Two (not-relevant, relevant): the relevant one.
  const scoreBatch = async (query: string, batch: string[]) =>
    (
      await pairLogits(
        m,
        batch.map(() => query),
        batch,
      )
    ).map((l) => l[l.length - 1]!);
  return {
    id,
    score: (query, passages, o) =>
      byLength(
        passages,
        (p) => query.length + p.length,
        batchSize,
        o?.signal,
        (batch) => scoreBatch(query, batch),
      ),
  };
}

/** Maps a model's id2label (SciFact or MNLI style) onto SUPPORT / NO_EVIDENCE / CONTRADICT. */
export function nliLabelMap(id2label: Record<string, string>, modelId: string): NliLabel[] {
  const labels = Object.keys(id2label)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => {
      const mapped = nliLabelOf(id2label[k]!);
      if (!mapped) throw new Error(`NLI model "${modelId}": cannot map label "${id2label[k]}" to ${NLI_LABELS.join(" / ")}`);
      return mapped;
    });
  for (const l of NLI_LABELS) if (!labels.includes(l)) throw new Error(`NLI model "${modelId}" has no label for ${l} (labels: ${Object.values(id2label).join(", ")})`);
  return labels;
}

function softmax(xs: number[]): number[] {
  const max = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** NLI with a sequence-pair classifier: softmax over its labels, mapped to Citeflow's. */
export async function loadNli(id: string, options: LocalModelOptions): Promise<NliModel> {
  const m = await loadPairModel(id, options);
  const id2label = (m.model.config as unknown as { id2label: Record<string, string> }).id2label;
  const labels = nliLabelMap(id2label, id);
  const sciFactStyle = Object.values(id2label).some((l) => /^support/i.test(l));
  const claimFirst = (options.pairOrder ?? (sciFactStyle ? "claim-first" : "premise-first")) === "claim-first";
  const batchSize = m.batchSize;
  const classifyBatch = async (batch: Array<{ premise: string; hypothesis: string }>) => {
    const premises = batch.map((p) => p.premise);
    const hypotheses = batch.map((p) => p.hypothesis);
    const logits = claimFirst ? await pairLogits(m, hypotheses, premises) : await pairLogits(m, premises, hypotheses);
    return logits.map((l) => {
      const probs = softmax(l);
      const out = { SUPPORT: 0, NO_EVIDENCE: 0, CONTRADICT: 0 } as NliProbabilities;
      labels.forEach((label, i) => (out[label] += probs[i]!));
      return out;
    });
  };
  return { id, classify: (pairs, o) => byLength(pairs, (p) => p.premise.length + p.hypothesis.length, batchSize, o?.signal, classifyBatch) };
}
