import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import {
  adapterHash,
  folderDigest,
  hubGguf,
  installedCalibration,
  readCalibration,
  loadEmbedder,
  loadLocalChat,
  loadNli,
  loadReranker,
  LOCAL_CHAT_VERSION,
  modelFolder,
  ONNX_MODEL_FILES,
  teiNli,
  teiReranker,
  teiServer,
  vllmReranker,
  vllmServer,
  openAIChat,
  setServerLimits,
  type ChatModel,
  type Dtype,
  type Embedder,
  type NliModel,
  type Reranker,
} from "@citeflow/models";
import { withoutCredentials, type Services, type VerdictCalibration } from "@citeflow/core";
import { openPassageStore, qdrantSpecUrl, unfinishedStoreMessage, type PassageStore } from "@citeflow/retrieval";
import { patchConfig, type SearchService, type ServicesConfig, type ServicesPatch } from "./config.js";
import { allowedEndpoint, EndpointNotAllowed, httpUrl, keyFor } from "./endpoints.js";
import { chooseChat, type ChatChoice, type LlmParams } from "./llm.js";
import { loadPrompt, promptFingerprint, promptPath } from "./prompts.js";

/** A model a node asks for: its id as resolved, the node's models folder ("" = the configured ones) and precision. */
export interface ModelRequest {
  id: string;
  modelsDir: string;
  dtype: Dtype;
}

declare module "@citeflow/core" {
  /** What the built-in nodes use; `createServices` builds it from a `ServicesConfig`. */
  interface Services {
    /**
     * The store a node names ("" = the configured one): a folder made by `citeflow ingest`, or `qdrant:<collection>`.
     * Opened once; refused while its ingest has not finished (how far it is, or how to resume it).
     */
    store(name: string): Promise<PassageStore>;
    /** What a store's results depend on, for cache keys: where it is and when it was last written. */
    storeIdentity(name: string): Promise<unknown>;
    /** A node's model param resolved: the param, else the configured model of that kind. */
    modelId(kind: "nli" | "reranker", param: string): string;
    /**
     * What a model's results depend on, for cache keys: its id and, installed here, the sha256 of its files (a model
     * retrained or recalibrated under the same id recomputes); for a served encoder what its server says it runs (its
     * model and revision, from `/info`), so a server redeployed with another model recomputes.
     */
    modelIdentity(kind: "nli" | "reranker", id: string, modelsDir?: string): Promise<unknown>;
    /**
     * The claim-verdict calibration chosen for an NLI model (calibration.json in its folder, `citeflow calibrate`); a
     * served one keeps the calibration of the installed model its server says it runs, and says so. Undefined: none.
     */
    nliCalibration(m: ModelRequest): Promise<VerdictCalibration | undefined>;
    /** The same for the in-process chat model a judge's params select: its adapter's calibration.json; undefined without an adapter or one. */
    judgeCalibration(p: Pick<LlmParams, "model" | "baseUrl">, task: string): VerdictCalibration | undefined;
    embedder(m: ModelRequest): Promise<Embedder>;
    reranker(m: ModelRequest): Promise<Reranker>;
    nli(m: ModelRequest): Promise<NliModel>;
    /** Which chat model a node's params select, before anything is loaded; `task`: the node's type (the default adapter applies to the tasks it was trained on). */
    chatChoice(p: Pick<LlmParams, "model" | "baseUrl">, task: string): ChatChoice;
    /** The chat model a node's params select, loaded once; undefined when the choice is none. */
    chat(p: LlmParams, task: string): Promise<ChatModel | undefined>;
    /** Which chat model a node would use, for cache keys: a local model by file name and size (and its adapter's hash), a server's by name and address. */
    chatIdentity(p: Pick<LlmParams, "model" | "baseUrl">, task: string): unknown;
    /** A prompt param's template: inline, a shipped `file:<name>.vN`, or a file in the graph's folder or the prompt folders. */
    prompt(ref: string): string;
    /** Where a `file:` prompt is, or undefined for an inline one; throws for a file outside the prompt folders. */
    promptPath(ref: string): string | undefined;
    /** A prompt's content hash, for cache keys: edits to a prompt file re-run the node. */
    promptIdentity(ref: string): string | null;
    /** Whether the user configured or allowed this server. */
    endpointAllowed(url: string): boolean;
    /** Whether a models folder a graph names is one the user configured ($CITEFLOW_MODELS, the models home) or allowed. */
    modelsDirAllowed(dir: string): boolean;
    /** Throws EndpointNotAllowed unless the user configured or allowed this server (`where`: the node's param that names it). */
    requireEndpoint(url: string, where: string): void;
    /** A search service's key, for a request to `baseUrl` (empty: the service's own API); none for any other server. */
    apiKey(service: SearchService, baseUrl?: string): string | undefined;
  }
}

/** What services derived from one another share: models and stores loaded, and the servers consented to. */
interface Shared {
  loaded: Map<string, Promise<unknown>>;
  consented: Set<string>;
  /** Models folders consented to, as real paths. */
  consentedDirs: Set<string>;
}

/** A folder as the file system names it (symlinks resolved) when it exists, else as given, made absolute. */
const realDir = (dir: string): string => {
  const abs = resolve(dir);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
};

export class ModelsDirNotAllowed extends Error {
  override name = "ModelsDirNotAllowed";
  constructor(
    readonly dir: string,
    where: string,
  ) {
    super(
      `${where} names the models folder ${dir}, which you have not configured: a graph file cannot choose which model files run. ` +
        `To allow it, run with --allow-models-dir ${dir}, confirm it in the editor, or add it to $CITEFLOW_MODELS`,
    );
  }
}

/** The server (and, for vLLM, the model) a served encoder's name points at: `tei:<url>`, `vllm:<url>/<model>`. */
function servedEncoder(name: string): { url: string; model?: string } | undefined {
  const tei = teiServer(name);
  return tei ? { url: tei } : vllmServer(name);
}

/** The built-in nodes' services over one configuration. Models and stores load once and are shared by every run that uses them. */
export class CiteflowServices implements Services {
  readonly #shared: Shared;

  constructor(
    readonly config: Readonly<ServicesConfig>,
    shared: Shared = { loaded: new Map(), consented: new Set(), consentedDirs: new Set() },
  ) {
    this.#shared = shared;
    // Every served model's server gets these limits, one budget per server for the whole process.
    if (config.serverLimits) setServerLimits(config.serverLimits);
  }

  /** The same services with some settings changed (a notebook picking its store); what is loaded stays loaded. */
  with(patch: ServicesPatch): CiteflowServices {
    return new CiteflowServices(patchConfig(this.config, patch), this.#shared);
  }

  /** Consent, for these services and those derived from them, to a server a graph names (`citeflow run --allow-endpoint`, the editor's dialog): it and everything under it. */
  allowEndpoint(url: string): void {
    if (!httpUrl(url)) throw new Error(`--allow-endpoint ${url}: not an http(s) URL`);
    this.#shared.consented.add(url.trim());
  }

  /** Consent, as for a server, to a models folder a graph names (`--allow-models-dir`, the editor's dialog). */
  allowModelsDir(dir: string): void {
    if (dir.trim() === "") throw new Error("--allow-models-dir: give a folder");
    this.#shared.consentedDirs.add(realDir(dir));
  }

  /** Consent to what a graph reaches, as the editor's dialog sends it back: an http(s) URL is a server, anything else a models folder. */
  allow(target: string): void {
    if (httpUrl(target)) this.allowEndpoint(target);
    else this.allowModelsDir(target);
  }

  modelsDirAllowed(dir: string): boolean {
    const real = realDir(dir);
    return this.config.modelsDirs.some((d) => realDir(d) === real) || this.#shared.consentedDirs.has(real);
  }

  /** The servers a graph may reach: the configured chat and Qdrant servers, the user's list, then consents. */
  get endpoints(): string[] {
    const c = this.config;
    const encoders = [c.models.nli, c.models.reranker].flatMap((m) => servedEncoder(m)?.url ?? []);
    return [...[c.chat.baseUrl, c.qdrant.url].filter((u) => u !== ""), ...encoders, ...c.allowedEndpoints, ...this.#shared.consented];
  }

  #once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.#shared.loaded.get(key) as Promise<T> | undefined;
    if (!p) {
      p = load();
      this.#shared.loaded.set(key, p);
      p.catch(() => this.#shared.loaded.delete(key)); // a failed load is tried again next time
    }
    return p;
  }

  #storeSpec(name: string): string {
    const spec = name || this.config.store;
    if (!spec) throw new Error(`no store: set the node's "store" param, or the store of the run (--store, $CITEFLOW_STORE), to a folder made by citeflow ingest (or qdrant:<collection>)`);
    if (spec.startsWith("qdrant:")) return spec;
    const abs = resolve(spec);
    if (!existsSync(abs)) throw new Error(`store folder ${abs} does not exist: build it with citeflow ingest --store ${spec} …`);
    return abs;
  }

  store(name: string): Promise<PassageStore> {
    const spec = this.#storeSpec(name);
    const q = this.config.qdrant;
    // A Qdrant server the graph names needs consent, as any other server does, and gets the key only if it is $QDRANT_URL.
    const at = qdrantSpecUrl(spec);
    if (at) this.requireEndpoint(at, "params.store");
    const apiKey = keyFor(at, q.url, q.apiKey);
    return this.#once(`store:${spec}`, () => openPassageStore(spec, { QDRANT_URL: q.url || undefined, QDRANT_API_KEY: apiKey })).then(async (store) => {
      // A store whose ingest has not finished has no search index yet, or half a corpus: refused, saying how far it is.
      if ((await store.meta())?.incomplete) throw new Error(unfinishedStoreMessage(store.location));
      return store;
    });
  }

  async storeIdentity(name: string): Promise<unknown> {
    const store = await this.store(name);
    const meta = await store.meta();
    return { dir: store.location, updatedAt: meta?.updatedAt ?? null, passages: meta?.passages ?? null };
  }

  modelId(kind: "nli" | "reranker", param: string): string {
    return param || this.config.models[kind];
  }

  async modelIdentity(kind: "nli" | "reranker", id: string, modelsDir = ""): Promise<unknown> {
    if (!servedEncoder(id)) {
      // A models folder the user did not allow is refused when the node loads, with its param named.
      if (modelsDir && !this.modelsDirAllowed(modelsDir)) return id;
      const folder = modelFolder(id, modelsDir ? [modelsDir] : this.config.modelsDirs);
      return folder ? { id, files: folderDigest(folder, ONNX_MODEL_FILES) } : id;
    }
    const m = { id, modelsDir: "", dtype: "fp32" as const };
    const served = (await (kind === "nli" ? this.nli(m) : this.reranker(m))) as { runs?: string; revision?: string | null };
    return { id, runs: served.runs ?? null, revision: served.revision ?? null };
  }

  async nliCalibration(m: ModelRequest): Promise<VerdictCalibration | undefined> {
    if (!servedEncoder(m.id)) return installedCalibration(m.id, this.#modelOptions(m).modelsDirs);
    const runs = (await this.nli(m)).runs;
    const chosen = runs ? installedCalibration(runs, this.config.modelsDirs) : undefined;
    return chosen && { ...chosen, rule: `${chosen.rule}; served at ${m.id}, which reports it runs ${runs}` };
  }

  judgeCalibration(p: Pick<LlmParams, "model" | "baseUrl">, task: string): VerdictCalibration | undefined {
    const choice = this.chatChoice(p, task);
    const adapter = choice.kind === "local" || choice.kind === "hub" ? choice.adapter : undefined;
    return adapter ? readCalibration(dirname(adapter.path)) : undefined;
  }

  #modelOptions(m: ModelRequest) {
    if (m.modelsDir && !this.modelsDirAllowed(m.modelsDir)) throw new ModelsDirNotAllowed(realDir(m.modelsDir), "params.modelsDir");
    return { dtype: m.dtype, modelsDirs: m.modelsDir ? [m.modelsDir] : this.config.modelsDirs, allowDownloads: this.config.allowDownloads };
  }

  embedder(m: ModelRequest): Promise<Embedder> {
    return this.#once(`embedder:${JSON.stringify(m)}`, () => loadEmbedder(m.id, this.#modelOptions(m)));
  }

  reranker(m: ModelRequest): Promise<Reranker> {
    const served = this.#served(m.id, "reranker");
    const load = () => (!served ? loadReranker(m.id, this.#modelOptions(m)) : served.model ? vllmReranker(served.url, served.model, served) : teiReranker(served.url, served));
    return this.#once(`reranker:${JSON.stringify(m)}`, load);
  }

  nli(m: ModelRequest): Promise<NliModel> {
    const served = this.#served(m.id, "nli");
    if (served?.model) throw new Error(`NLI model "${m.id}": vLLM serves NLI models through /classify, which reads one text, not a pair; serve it with text-embeddings-inference (tei:<url>)`);
    return this.#once(`nli:${JSON.stringify(m)}`, () => (served ? teiNli(served.url, served) : loadNli(m.id, this.#modelOptions(m))));
  }

  /**
   * A served encoder (`tei:<url>`): its server and what goes to it. The model the user configured
   * ($CITEFLOW_NLI_MODEL, $CITEFLOW_RERANK_MODEL) needs no consent and gets $CITEFLOW_ENCODER_API_KEY;
   * a server a graph's `model` param names needs consent, as any other, and gets no key.
   */
  #served(id: string, kind: "nli" | "reranker"): { url: string; model?: string; apiKey?: string } | undefined {
    const at = servedEncoder(id);
    if (!at) return undefined;
    const configured = servedEncoder(this.config.models[kind])?.url;
    if (at.url !== configured) this.requireEndpoint(at.url, "params.model");
    const apiKey = at.url === configured ? this.config.encoderApiKey : undefined;
    return { ...at, ...(apiKey ? { apiKey } : {}) };
  }

  chatChoice(p: Pick<LlmParams, "model" | "baseUrl">, task: string): ChatChoice {
    return chooseChat(p, this.config, task);
  }

  chat(p: LlmParams, task: string): Promise<ChatModel | undefined> {
    const c = this.chatChoice(p, task);
    const { sequences, contextSize } = this.config.chat;
    const local = { ...(sequences ? { sequences } : {}), ...(contextSize ? { contextSize } : {}) };
    if (c.kind === "none") return Promise.resolve(undefined);
    if (c.kind === "local") return loadLocalChat(c.path, { ...local, ...(c.adapter ? { adapter: c.adapter } : {}) });
    if (c.kind === "hub")
      return this.#once(`hub:${c.uri}`, async () =>
        loadLocalChat(await hubGguf(c.uri, this.config.allowDownloads, this.config.modelsHome), { ...local, ...(c.adapter ? { adapter: c.adapter } : {}) }),
      );
    // The key and custom headers go to the server the user configured (or the SDK's default when none is) and
    // nowhere else; a server the graph names needs consent, and gets no key.
    if (p.baseUrl) this.requireEndpoint(p.baseUrl, "params.baseUrl");
    const apiKey = keyFor(p.baseUrl, this.config.chat.baseUrl, this.config.chat.apiKey) || "no-key";
    const headers = keyFor(p.baseUrl, this.config.chat.baseUrl, this.config.chat.headers);
    const key = JSON.stringify([c.model, c.baseUrl, apiKey, headers, p.timeoutMs, p.retries]); // a key kept in memory only
    return this.#once(`chat:${key}`, async () => {
      return openAIChat({ model: c.model, ...(c.baseUrl ? { baseURL: c.baseUrl } : {}), apiKey, ...(headers ? { headers } : {}), timeoutMs: p.timeoutMs, maxRetries: p.retries });
    });
  }

  chatIdentity(p: Pick<LlmParams, "model" | "baseUrl">, task: string): unknown {
    const c = this.chatChoice(p, task);
    if (c.kind === "none") return null;
    // An adapter changes every answer: its content hash is part of the identity (and so of cache keys).
    const adapter = c.kind !== "http" && c.adapter ? { adapter: adapterHash(c.adapter.path) } : {};
    if (c.kind === "local") return { local: basename(c.path), bytes: statSync(c.path).size, format: LOCAL_CHAT_VERSION, ...adapter };
    if (c.kind === "hub") return { hub: c.uri, format: LOCAL_CHAT_VERSION, ...adapter };
    return { model: c.model, baseUrl: c.baseUrl ? withoutCredentials(c.baseUrl) : null };
  }

  get #promptRoots(): string[] {
    return [this.config.graphDir, ...this.config.promptDirs];
  }

  prompt(ref: string): string {
    return loadPrompt(ref, this.#promptRoots);
  }

  promptPath(ref: string): string | undefined {
    return promptPath(ref, this.#promptRoots);
  }

  promptIdentity(ref: string): string | null {
    return promptFingerprint(ref, this.#promptRoots);
  }

  endpointAllowed(url: string): boolean {
    return allowedEndpoint(url, this.endpoints);
  }

  requireEndpoint(url: string, where: string): void {
    if (!this.endpointAllowed(url)) throw new EndpointNotAllowed(url, where);
  }

  /** A search service's key for a request to `baseUrl` (empty: the service's own API): only there (`keyFor`). */
  apiKey(service: SearchService, baseUrl = ""): string | undefined {
    return keyFor(baseUrl, "", this.config.apiKeys[service]);
  }
}

/** The built-in nodes' services over a configuration (`configFromEnv(process.env)` at an edge). */
export function createServices(config: ServicesConfig): CiteflowServices {
  return new CiteflowServices(config);
}
