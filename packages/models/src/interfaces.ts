/** Turns texts into vectors (L2-normalised, so a dot product is the cosine). */
export interface Embedder {
  /** Model id as resolved, e.g. "static-use-en" or "Xenova/all-MiniLM-L6-v2". */
  readonly id: string;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/** Scores (query, passage) pairs; higher is more relevant. Scores are raw model outputs. */
export interface Reranker {
  readonly id: string;
  score(query: string, passages: string[], options?: { signal?: AbortSignal }): Promise<number[]>;
}

export const NLI_LABELS = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"] as const;
export type NliLabel = (typeof NLI_LABELS)[number];
export type NliProbabilities = Record<NliLabel, number>;

/** Premise/hypothesis pairs → probability of each label. */
export interface NliModel {
  readonly id: string;
  classify(pairs: Array<{ premise: string; hypothesis: string }>, options?: { signal?: AbortSignal }): Promise<NliProbabilities[]>;
}

/** Default models for users who are online (the Hugging Face ids of the ONNX exports). */
export const DEFAULT_MODELS = {
  embedder: "Xenova/all-MiniLM-L6-v2",
  reranker: "Xenova/ms-marco-MiniLM-L-6-v2",
  nli: "Xenova/nli-deberta-v3-xsmall",
} as const;

/** The offline embedder when nothing better is installed: static token vectors, weak (see docs/models.md). */
export const OFFLINE_EMBEDDER = "static-use-en";
