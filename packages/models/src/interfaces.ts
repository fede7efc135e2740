/** Turns texts into vectors (L2-normalised, so a dot product is the cosine). */
export interface Embedder {
  /** Model id as resolved, e.g. "static-use-en" or "Xenova/all-MiniLM-L6-v2". */
  readonly id: string;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/** Scores (query, passage) pairs; higher is more relevant. Scores are raw model outputs. */
export interface Reranker {
  readonly id: string;
  /**
   * The weight its maker fuses the retriever's lexical score with, when the model says (Citeflow's
   * trained reranker: `citeflow_reranker.lexicalWeight` in its config); the rerank node uses it
   * unless its own param is set.
   */
  readonly lexicalWeight?: number;
  score(query: string, passages: string[], options?: { signal?: AbortSignal }): Promise<number[]>;
}

export const NLI_LABELS = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"] as const;
export type NliLabel = (typeof NLI_LABELS)[number];
export type NliProbabilities = Record<NliLabel, number>;

/** Premise/hypothesis pairs → probability of each label. */
export interface NliModel {
  readonly id: string;
  /**
   * Served models: the model the server says it runs (TEI's `model_id`, a path's last two parts), whose claim-verdict
   * calibration then applies — a served copy of a calibrated model keeps its calibration. In-process: unset (the id).
   */
  readonly runs?: string;
  classify(pairs: Array<{ premise: string; hypothesis: string }>, options?: { signal?: AbortSignal }): Promise<NliProbabilities[]>;
}

/**
 * Default models. The embedder is all-MiniLM-L6-v2 (its Hugging Face id; `npm run models` installs
 * it). The NLI model and the reranker are Citeflow's own, trained by `citeflow train` from its
 * exports and shipped in the repository's models/ folder with their cards (`npm run models`
 * installs them).
 */
export const DEFAULT_MODELS = {
  embedder: "Xenova/all-MiniLM-L6-v2",
  reranker: "citeflow/rerank-minilm-scifact",
  nli: "citeflow/nli-minilm-scifact",
} as const;

/** The offline embedder when nothing better is installed: static token vectors, weak (see docs/models.md). */
export const OFFLINE_EMBEDDER = "static-use-en";
