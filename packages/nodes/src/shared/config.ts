import { delimiter, resolve } from "node:path";
import { headerLines } from "@citeflow/core";
import { DEFAULT_MODELS, modelsDirsFromEnv, modelsHome, type ServerLimits } from "@citeflow/models";

/** The search services that take an API key. */
export type SearchService = "semantic-scholar" | "core" | "pubmed";

/**
 * Everything the built-in nodes depend on outside their params, resolved once at the edge (the CLI,
 * the kernel, a notebook) and handed to `createServices`. Nodes never read the environment.
 */
export interface ServicesConfig {
  /** The store nodes use when their `store` param is empty: a folder, or `qdrant:<collection>`. */
  store: string;
  /** Local models folders, searched in order. */
  modelsDirs: string[];
  /** Where `npm run models` installs, and hub models are downloaded to. */
  modelsHome: string;
  /** May a missing model be downloaded? */
  allowDownloads: boolean;
  /** Load local models whose folder has no SHA256SUMS without a warning in the run's first lines ($CITEFLOW_UNVERIFIED_MODELS=1). */
  quietUnverifiedModels?: boolean;
  /** Model ids nodes use when their `model` param is empty (`tei:<url>`: served by text-embeddings-inference). */
  models: { nli: string; reranker: string };
  /** The key of the encoder servers the user configured in `models` ($CITEFLOW_ENCODER_API_KEY): sent to those only. */
  encoderApiKey?: string;
  /**
   * The chat model nodes use when their `model` param is empty, and the OpenAI-compatible server the user configured:
   * its key and its custom headers go to that server only (`keyFor`).
   */
  chat: { model: string; baseUrl: string; apiKey: string; headers?: Record<string, string>; sequences?: number; contextSize?: number };
  /** Servers a graph may name besides `chat.baseUrl` (the user's list; consents are added per process). */
  allowedEndpoints: string[];
  /** The graph's folder: relative `file:` prompts resolve there, and it is one of the folders prompts are read from. */
  graphDir: string;
  /** More folders prompts may be read from. */
  promptDirs: string[];
  /** API keys for the search services (graphs never hold keys, nor name them). */
  apiKeys: Partial<Record<SearchService, string>>;
  /** The Qdrant server `qdrant:<collection>` stores are on. */
  qdrant: { url: string; apiKey: string };
  /** What each served model's server takes at once, shared by every run of the process (`setServerLimits`); none when absent. */
  serverLimits?: ServerLimits;
}

/** Settings to change: a top-level field is replaced; `chat`, `models`, `qdrant` and `apiKeys` are merged field by field. */
export type ServicesPatch = Partial<Omit<ServicesConfig, "chat" | "models" | "qdrant" | "apiKeys">> & {
  chat?: Partial<ServicesConfig["chat"]>;
  models?: Partial<ServicesConfig["models"]>;
  qdrant?: Partial<ServicesConfig["qdrant"]>;
  apiKeys?: ServicesConfig["apiKeys"];
};

export function patchConfig(c: ServicesConfig, p: ServicesPatch): ServicesConfig {
  return {
    ...c,
    ...p,
    chat: { ...c.chat, ...p.chat },
    models: { ...c.models, ...p.models },
    qdrant: { ...c.qdrant, ...p.qdrant },
    apiKeys: { ...c.apiKeys, ...p.apiKeys },
  };
}

type Env = Record<string, string | undefined>;

/** A whole number above 0 from the environment variable `name`, or undefined when it is unset; anything else is refused by name. */
function positive(env: Env, name: string): number | undefined {
  const v = env[name]?.trim();
  if (!v) return undefined;
  if (!/^\d+$/.test(v) || Number(v) === 0) throw new Error(`$${name}: give a whole number above 0, not ${JSON.stringify(env[name])}`);
  return Number(v);
}
/**
 * $OPENAI_CUSTOM_HEADERS (core's `headerLines`), for the configured server only. A line that is not `Name: value`
 * is refused by its number (never its text: a header may hold a secret).
 */
function customHeaders(v: string | undefined): Record<string, string> | undefined {
  if (!v?.trim()) return undefined;
  const { headers, bad } = headerLines(v);
  if (bad.length) throw new Error(`$OPENAI_CUSTOM_HEADERS: line ${bad[0]} is not "Name: value"`);
  return headers;
}
const list = (v: string | undefined, sep: RegExp | string) => (v ?? "").split(sep).filter((x) => x.trim() !== "");

/**
 * The one reading of the environment for nodes, at the edge: pass `process.env`, and the graph's
 * folder when a graph file is run (else the working folder).
 */
export function configFromEnv(env: Env, graphDir: string = process.cwd()): ServicesConfig {
  const keys: Partial<Record<SearchService, string>> = {};
  if (env.S2_API_KEY) keys["semantic-scholar"] = env.S2_API_KEY;
  if (env.CORE_API_KEY) keys.core = env.CORE_API_KEY;
  if (env.NCBI_API_KEY) keys.pubmed = env.NCBI_API_KEY;
  const sequences = positive(env, "CITEFLOW_LLM_SEQUENCES");
  const contextSize = positive(env, "CITEFLOW_LLM_CONTEXT");
  const headers = customHeaders(env.OPENAI_CUSTOM_HEADERS);
  return {
    store: env.CITEFLOW_STORE ?? "",
    modelsDirs: modelsDirsFromEnv(env),
    modelsHome: modelsHome(env),
    allowDownloads: env.CITEFLOW_ALLOW_DOWNLOADS === "1",
    quietUnverifiedModels: env.CITEFLOW_UNVERIFIED_MODELS === "1",
    models: { nli: env.CITEFLOW_NLI_MODEL || DEFAULT_MODELS.nli, reranker: env.CITEFLOW_RERANK_MODEL || DEFAULT_MODELS.reranker },
    ...(env.CITEFLOW_ENCODER_API_KEY ? { encoderApiKey: env.CITEFLOW_ENCODER_API_KEY } : {}),
    chat: {
      model: (env.CITEFLOW_CHAT_MODEL ?? "").trim(),
      baseUrl: env.OPENAI_BASE_URL ?? "",
      apiKey: env.OPENAI_API_KEY ?? "",
      ...(headers ? { headers } : {}),
      ...(sequences ? { sequences } : {}),
      ...(contextSize ? { contextSize } : {}),
    },
    allowedEndpoints: list(env.CITEFLOW_ALLOWED_ENDPOINTS, /[\s,]+/),
    graphDir: resolve(graphDir),
    promptDirs: list(env.CITEFLOW_PROMPTS, delimiter).map((d) => resolve(d)),
    apiKeys: keys,
    qdrant: { url: env.QDRANT_URL ?? "", apiKey: env.QDRANT_API_KEY ?? "" },
    serverLimits: { concurrent: positive(env, "CITEFLOW_SERVER_CONCURRENCY"), tokensPerMinute: positive(env, "CITEFLOW_SERVER_TOKENS_PER_MINUTE") },
  };
}
