import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { DEFAULT_MODELS, OFFLINE_EMBEDDER } from "./interfaces.js";

export interface ModelLocation {
  /** Folder whose `<id>/config.json` exists, or undefined when it will come from the hub or its cache. */
  localDir?: string;
  /** True when the model may be fetched (or read from the download cache). */
  remote: boolean;
}

export interface ResolveOptions {
  /** Local models folders, searched in order (an edge reads them with modelsDirsFromEnv: $CITEFLOW_MODELS, then the models home). */
  modelsDirs: string[];
  /** May a missing model be downloaded? Default no (an edge says yes for $CITEFLOW_ALLOW_DOWNLOADS=1). */
  allowDownloads?: boolean;
  /** The library's download cache folder, searched after the local folders. */
  cacheDir?: string;
}

export class ModelNotFoundError extends Error {
  override name = "ModelNotFoundError";
  constructor(
    readonly modelId: string,
    readonly looked: string[],
  ) {
    super(
      `model "${modelId}" not found. Looked in:\n` +
        looked.map((l) => `  - ${l}`).join("\n") +
        `\nTo fix: put the model in the Hugging Face ONNX layout (${modelId}/config.json, tokenizer files, onnx/model.onnx) ` +
        `under a folder named in $CITEFLOW_MODELS (or the node's modelsDir param), run \`npm run models\` for the pretrained models Citeflow installs offline, or allow downloads with CITEFLOW_ALLOW_DOWNLOADS=1 when online.`,
    );
  }
}

/**
 * Where `npm run models` lays out the pretrained weights it installs: $CITEFLOW_MODELS_HOME, else
 * $XDG_CACHE_HOME/citeflow/models, else ~/.cache/citeflow/models.
 */
export function modelsHome(env: NodeJS.ProcessEnv): string {
  if (env.CITEFLOW_MODELS_HOME) return resolve(env.CITEFLOW_MODELS_HOME);
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "citeflow", "models");
}

/** The local models folders, in search order: each of $CITEFLOW_MODELS (a path list), then the models home. */
export function modelsDirsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const dirs = (env.CITEFLOW_MODELS ?? "").split(delimiter).filter((d) => d.trim() !== "");
  const home = modelsHome(env);
  return dirs.some((d) => resolve(d) === home) ? dirs : [...dirs, home];
}

/**
 * Where a model id comes from: the first local models folder holding `<id>/config.json`, then the
 * download cache, then (only when downloads are allowed) the hub. Offline and missing → an error
 * naming every place looked and how to fix it.
 */
export function resolveModel(id: string, options: ResolveOptions): ModelLocation {
  if (id.trim() === "" || id.split("/").includes("..")) throw new Error(`"${id}" is not a model id`);
  const dirs = options.modelsDirs.map((d) => resolve(d));
  const looked: string[] = [];
  for (const dir of dirs) {
    const path = join(dir, id, "config.json");
    if (existsSync(path)) return { localDir: dir, remote: false };
    looked.push(path);
  }
  if (options.cacheDir) {
    const path = join(options.cacheDir, id, "config.json");
    if (existsSync(path)) return { remote: true };
    looked.push(`${path} (download cache)`);
  }
  if (options.allowDownloads) return { remote: true };
  looked.push("the model hub: downloads are off (CITEFLOW_ALLOW_DOWNLOADS is not 1)");
  throw new ModelNotFoundError(id, looked);
}

/**
 * The embedder new stores are built with: $CITEFLOW_EMBEDDER, else all-MiniLM-L6-v2 when it is in a
 * local models folder (`npm run models` puts it there), else the offline static-use-en.
 */
export function defaultEmbedder(env: NodeJS.ProcessEnv): string {
  if (env.CITEFLOW_EMBEDDER) return env.CITEFLOW_EMBEDDER;
  try {
    return resolveModel(DEFAULT_MODELS.embedder, { modelsDirs: modelsDirsFromEnv(env), allowDownloads: false }).localDir ? DEFAULT_MODELS.embedder : OFFLINE_EMBEDDER;
  } catch {
    return OFFLINE_EMBEDDER;
  }
}
