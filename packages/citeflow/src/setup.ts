import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { DEFAULT_MODELS, defaultEmbedder, describeModel, OFFLINE_EMBEDDER } from "@citeflow/models";
import { describeChat } from "@citeflow/nodes";
import { dataFolder as dataFolderIn, LanceStore, newTally, openScholarChunker, pdfDocuments, readBeirCorpus, type ReadProblem, type SourceTally } from "@citeflow/retrieval";
import { indexingProgress } from "@citeflow/core";
import { display, displaySink, newDisplay } from "./display.js";
import { defaultRunsDir } from "./run.js";
import { configure, services } from "./services.js";

/** The data folder (holding scifact/): $CITEFLOW_DATA, else the data shipped with Citeflow; undefined when neither is there. */
export const dataFolder = (): { dir: string; from: string } | undefined => dataFolderIn(process.env);

/**
 * The NLI model and reranker this kernel's runs use, for the kinds no environment variable
 * ($CITEFLOW_NLI_MODEL, $CITEFLOW_RERANK_MODEL) chose: Citeflow's trained models (the defaults,
 * installed by `npm run models`), else the weak SciFact pair models when a models folder has
 * them. Returns what was chosen, with where each model's card is.
 */
export function useOfflineModels(): { nli?: string; reranker?: string } {
  const { modelsDirs } = services().config;
  const set: { nli?: string; reranker?: string } = {};
  const offer = (kind: "nli" | "reranker", variable: string, fallback: string) => {
    if (process.env[variable]) return;
    const model = [DEFAULT_MODELS[kind], fallback].find((m) => modelsDirs.some((d) => existsSync(join(d, m, "config.json"))));
    if (model) set[kind] = model;
  };
  offer("nli", "CITEFLOW_NLI_MODEL", "pair-nli-scifact");
  offer("reranker", "CITEFLOW_RERANK_MODEL", "pair-rerank-scifact");
  configure({ models: set });
  const lines = Object.entries(set).map(([kind, id]) => `${kind}: ${describeModel(id, modelsDirs, services().config.quietUnverifiedModels)}`);
  // In a notebook, an output of the cell (stderr is its red box, for what went wrong); elsewhere on stderr.
  if (lines.length && displaySink()) display.bundle({ "text/plain": lines.join("\n") });
  else for (const line of lines) process.stderr.write(`${line}\n`);
  return set;
}

/**
 * A store of SciFact's 5,183 abstracts (OpenScholar chunking; all-MiniLM-L6-v2 when `npm run models`
 * installed it, else the offline static-use-en: see `defaultEmbedder`), the same one `citeflow demo` builds, made on first use from `scifact/corpus.jsonl` in `dataFolder()` ($CITEFLOW_DATA, else the data shipped with Citeflow)
 * (resumed if an earlier build was cut short) and made the store of this kernel's runs. Returns its folder.
 * A SciFact store already named by $CITEFLOW_STORE (as `npm run lab` prepares one) is used as it is;
 * a build shows its progress unless `onProgress` is given (abstracts read so far, of how many): in a notebook one output
 * line updated in place, with what is left ("indexing SciFact: 2,083 of 5,183 abstracts (40 %), about 8 min left"),
 * elsewhere lines on stderr.
 */
export async function sciFactStore(options: { runs?: string; onProgress?: (documents: number, total: number) => void } = {}): Promise<string> {
  const data = dataFolder();
  if (!data) throw new Error("sciFactStore reads scifact/corpus.jsonl from $CITEFLOW_DATA or the data shipped with a Citeflow checkout: set CITEFLOW_DATA to a data folder");
  const corpus = join(data.dir, "scifact", "corpus.jsonl");
  if (!existsSync(corpus)) throw new Error(`no ${corpus} (the data folder from ${data.from})`);
  const embedderId = defaultEmbedder(process.env);
  const prepared = process.env.CITEFLOW_STORE;
  if (prepared && (await holdsSciFact(prepared, corpus))) {
    configure({ store: prepared });
    return prepared;
  }
  const dir = sciFactStoreDir(options.runs);
  const store = await LanceStore.open(dir);
  const total = readFileSync(corpus, "utf8")
    .split("\n")
    .filter((l) => l.trim()).length;
  const onProgress = options.onProgress ?? progressShown(dir, total);
  const embedder = await services().embedder({ id: embedderId, modelsDir: "", dtype: "fp32" });
  await store.ingest(readBeirCorpus(corpus), {
    chunker: openScholarChunker(),
    chunkerName: "openscholar-256",
    embedder,
    batchSize: embedderId === OFFLINE_EMBEDDER ? 512 : 64,
    onProgress: (p: { documents: number }) => onProgress(p.documents, total),
    expectedDocuments: total,
  });
  configure({ store: dir });
  return dir;
}

/**
 * sciFactStore's progress when no one else takes it: in a notebook (a display sink) one line updated in place at most
 * every 2 s, not the stderr box; elsewhere a line on stderr each batch.
 */
function progressShown(dir: string, total: number): (documents: number) => void {
  const startedAt = new Date().toISOString();
  if (!displaySink()) return (n) => process.stderr.write(`sciFactStore: ${n.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} abstracts indexed in ${dir}\n`);
  const line = newDisplay();
  let last = 0;
  return (n) => {
    const now = Date.now();
    if (now - last < 2000 && n < total) return;
    last = now;
    const text =
      n < total ? `indexing SciFact: ${indexingProgress({ startedAt, documents: n, total }, now, "abstracts").text}` : `SciFact indexed: ${total.toLocaleString("en-US")} abstracts in ${dir}`;
    line.bundle({ "text/plain": text });
  };
}

/** Where `sciFactStore` builds its store under a runs folder (default: the runs folder of this kernel), for the embedder in use. */
export function sciFactStoreDir(runs?: string): string {
  return join(runs ?? defaultRunsDir(), "stores", `scifact-${basename(defaultEmbedder(process.env))}`);
}

/** Whether a store folder is a whole store of this SciFact corpus: a finished ingest holding its first and last abstracts. */
async function holdsSciFact(dir: string, corpus: string): Promise<boolean> {
  if (!existsSync(join(dir, "citeflow-store.json"))) return false;
  const store = await LanceStore.open(dir);
  const meta = await store.meta();
  if (!meta || meta.incomplete) return false;
  const lines = readFileSync(corpus, "utf8").trim().split("\n");
  const ids = [lines[0]!, lines.at(-1)!].map((l) => `${String((JSON.parse(l) as { doc_id: unknown }).doc_id)}#0`);
  return (await store.passages(ids.map((id) => ({ id })))).size === ids.length;
}

/**
 * A store of your PDFs (a file or a folder, read as `citeflow ingest --format pdf` reads it:
 * unchanged files are not read again, changed ones replaced), made the store of this kernel's runs. Returns the
 * store's folder, what was read, and every file left out with the reason.
 */
export async function pdfStore(path: string, options: { store?: string; runs?: string } = {}): Promise<{ store: string; tally: SourceTally; problems: ReadProblem[] }> {
  const embedderId = defaultEmbedder(process.env);
  const dir = options.store ?? join(options.runs ?? defaultRunsDir(), "stores", `pdf-${basename(path).replace(/\.pdf$/i, "")}-${basename(embedderId)}`);
  const store = await LanceStore.open(dir);
  const report = { read: 0, problems: [] as ReadProblem[] };
  const tally = newTally();
  const docs = await pdfDocuments(path, store, report, tally);
  try {
    await store.ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder: await services().embedder({ id: embedderId, modelsDir: "", dtype: "fp32" }) });
  } catch (e) {
    if (report.read > 0 || report.problems.length === 0) throw e;
    throw new Error(`no PDF of ${path} could be read:\n${report.problems.map((p) => `  ${p.file}: ${p.message}`).join("\n")}`, { cause: e });
  }
  configure({ store: dir });
  return { store: dir, tally, problems: report.problems };
}

/**
 * Which language model the templates' chat nodes use here, in words: an in-process GGUF (after
 * `npm run models`: Gemma 3 270M), a server's model, or the extractive baseline and why. Answers
 * get Citeflow's adapter when it is installed; nodes it was not trained for get the base.
 */
export function languageModel(): string {
  const quiet = services().config.quietUnverifiedModels;
  const answers = describeChat(services().chatChoice({ model: "", baseUrl: "" }, "generate.answer"), quiet);
  const others = describeChat(services().chatChoice({ model: "", baseUrl: "" }, "query.enrich"), quiet);
  return answers === others ? answers : `${answers} for answers; ${others} for the other nodes`;
}
