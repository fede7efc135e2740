import { join } from "node:path";

/** Where `npm run models` installed the pretrained models (vitest.config.ts passes it on). */
export const INSTALLED = process.env.CITEFLOW_INSTALLED_MODELS!;
/** Gemma 3 270M, Q4_K_M: a base (pretrained, not instruction-tuned) model with no chat template. */
export const GEMMA = join(INSTALLED, "gemma-3-270m-q4_k_m.gguf");
