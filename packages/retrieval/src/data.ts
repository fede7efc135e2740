import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The data/ folder of the Citeflow checkout this package runs from (SciFact and PubMedQA ship there). */
export const SHIPPED_DATA = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "data");

/**
 * The data folder (holding scifact/ and the other corpora): $CITEFLOW_DATA, else the data shipped
 * with this checkout of Citeflow, else undefined (Citeflow installed from a registry, without its data).
 */
export function dataFolder(env: NodeJS.ProcessEnv): { dir: string; from: string } | undefined {
  if (env.CITEFLOW_DATA) return { dir: resolve(env.CITEFLOW_DATA), from: "$CITEFLOW_DATA" };
  return existsSync(join(SHIPPED_DATA, "scifact", "corpus.jsonl")) ? { dir: SHIPPED_DATA, from: "the data shipped with Citeflow" } : undefined;
}
