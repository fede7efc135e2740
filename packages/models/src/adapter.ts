import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { checkGgufHeader } from "./gguf.js";

/**
 * LoRA adapters for the in-process model: llama.cpp GGUF adapters (`citeflow train lm` writes
 * them), applied on top of a base GGUF. A chat model name `<base>+<adapter>` asks for one, e.g.
 * `gemma-3-270m-q4_k_m+citeflow/lm-gemma3-270m-scifact`: the adapter is a .gguf path, or a model id
 * whose folder (in the models folders) holds `adapter.gguf` beside its card.
 */

/** Citeflow's shipped adapter for answers (generate.answer). */
export const DEFAULT_ADAPTER = "citeflow/lm-gemma3-270m-scifact";

/** Citeflow's shipped adapter for arXivBot's claims (claims.extract). */
export const CLAIMS_ADAPTER = "citeflow/lm-gemma3-270m-scifact-claims";

/** Citeflow's shipped adapter for OpenScholar's true/false judge (verify.llm). */
export const JUDGE_ADAPTER = "citeflow/lm-gemma3-270m-scifact-judge";

/**
 * Citeflow's shipped adapters, each applied by default to the base it was trained on, for the node
 * types it was trained on (its training.json), when installed: answers, arXivBot's claims, the judge.
 */
export const DEFAULT_ADAPTERS = [DEFAULT_ADAPTER, CLAIMS_ADAPTER, JUDGE_ADAPTER] as const;

/** `base+adapter` → its two names; a name without "+" has no adapter. */
export function splitAdapter(name: string): { base: string; adapter?: string } {
  const at = name.lastIndexOf("+");
  if (at <= 0 || at === name.length - 1) return { base: name };
  return { base: name.slice(0, at).trim(), adapter: name.slice(at + 1).trim() };
}

/** The file an adapter's folder holds its weights in (beside README.md, its card). */
const ADAPTER_FILE = "adapter.gguf";

/** Whether a chat model name (`<base>+<adapter>`) puts the adapter `id` on, named by its id or by the path of its folder's adapter.gguf. */
export function usesAdapter(modelName: string, id: string): boolean {
  const adapter = splitAdapter(modelName).adapter ?? "";
  const folder = adapter.toLowerCase().endsWith(`/${ADAPTER_FILE}`) ? dirname(adapter) : adapter;
  return folder === id || folder.endsWith(`/${id}`);
}

/** The adapter file an id or path names, or undefined; `required` makes that an error naming every place looked. */
export function findAdapter(id: string, dirs: string[], required = false): string | undefined {
  const looked: string[] = [];
  const candidates = isAbsolute(id) || id.startsWith(".") || id.toLowerCase().endsWith(".gguf") ? [resolve(id)] : dirs.map((d) => join(resolve(d), id, ADAPTER_FILE));
  for (const p of candidates) {
    if (existsSync(p) && statSync(p).isFile()) return p;
    looked.push(p);
  }
  if (required)
    throw new Error(
      `LoRA adapter "${id}" not found. Looked in:\n${looked.map((l) => `  - ${l}`).join("\n")}\nTo fix: run \`npm run models\` (installs Citeflow's adapter), train one with \`citeflow train lm\`, or give the path to an adapter .gguf`,
    );
  return undefined;
}

const trainings = new Map<string, { base?: string; tasks: string[] } | undefined>();

/**
 * What an adapter was trained on, from the training.json `citeflow train lm` writes beside it:
 * the base GGUF's file name, and the node types whose rows it trained on (`counts.rows_by_node`).
 * An adapter whose file does not count them was trained by a `train lm` that read every row as
 * an answer (generate.answer), as it still reads rows without a node type. Undefined without a
 * readable training.json.
 */
export function adapterTraining(path: string): { base?: string; tasks: string[] } | undefined {
  const file = join(path, "..", "training.json");
  let key: string;
  try {
    const st = statSync(file);
    key = `${resolve(file)}\0${st.size}\0${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  // Every chat node asks when it runs and when its cache key is made: the file is read once while it is unchanged.
  if (trainings.has(key)) return trainings.get(key);
  let found: { base?: string; tasks: string[] } | undefined;
  try {
    const t = JSON.parse(readFileSync(file, "utf8")) as { base?: unknown; counts?: { rows_by_node?: unknown } };
    const byNode = t.counts?.rows_by_node;
    const tasks = byNode && typeof byNode === "object" ? Object.keys(byNode) : ["generate.answer"];
    found = { ...(typeof t.base === "string" ? { base: t.base } : {}), tasks };
  } catch {
    found = undefined;
  }
  trainings.set(key, found);
  return found;
}

/** The adapter's card (README.md beside it), when it has one. */
export function adapterCard(path: string): string | undefined {
  const card = join(path, "..", "README.md");
  return existsSync(card) ? resolve(card) : undefined;
}

const hashes = new Map<string, string>();

/** sha256 of the adapter file (remembered per path, size and time): part of every cache key of a model using it. */
export function adapterHash(path: string): string {
  const st = statSync(path);
  const key = `${resolve(path)}\0${st.size}\0${st.mtimeMs}`;
  let h = hashes.get(key);
  if (!h) hashes.set(key, (h = createHash("sha256").update(readFileSync(path)).digest("hex")));
  return h;
}

/** Refuses an adapter that is not a LoRA adapter for this base (its architecture, and each adapted tensor's shape), naming both files. */
export async function checkAdapter(adapterPath: string, basePath: string): Promise<void> {
  checkGgufHeader(adapterPath);
  const { readGgufFileInfo } = await import("node-llama-cpp");
  const read = async (p: string) => {
    const info = await readGgufFileInfo(p, { logWarnings: false });
    const general = (info.metadata as unknown as { general?: { type?: string; architecture?: string } }).general ?? {};
    return { general, tensors: new Map((info.fullTensorInfo ?? []).map((t) => [t.name, t.dimensions.map(Number)])) };
  };
  const [a, b] = [await read(adapterPath), await read(basePath)];
  if (a.general.type !== "adapter") throw new Error(`${adapterPath} is not a LoRA adapter (its general.type is ${a.general.type ?? "missing"})`);
  if (a.general.architecture !== b.general.architecture)
    throw new Error(
      `the LoRA adapter ${adapterPath} is for ${a.general.architecture ?? "an unknown architecture"} models; the base ${basePath} is ${b.general.architecture ?? "of an unknown architecture"}`,
    );
  // GGUF dimensions run fastest first: a weight is [in, out], lora_a [in, rank], lora_b [rank, out].
  for (const [name, dims] of a.tensors) {
    if (!name.endsWith(".lora_a")) continue;
    const weight = name.slice(0, -".lora_a".length);
    const w = b.tensors.get(weight);
    const lb = a.tensors.get(`${weight}.lora_b`);
    if (!w || !lb || w[0] !== dims[0] || w[1] !== lb[1])
      throw new Error(
        `the LoRA adapter ${adapterPath} does not fit the base ${basePath}: ${weight} is ${w ? `[${w.join(", ")}]` : "missing"} in the base, and the adapter expects [${dims[0]}, ${lb?.[1] ?? "?"}] (was it trained on another model?)`,
      );
  }
}
