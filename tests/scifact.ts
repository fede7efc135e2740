import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach } from "vitest";
import { loadEmbedder } from "@citeflow/models";
import { loopback, type Loopback } from "./models/loopback.js";
import { LanceStore, openScholarChunker, readBeirCorpus, type CorpusDocument } from "@citeflow/retrieval";

/** Setup for suites that need SciFact and the test models. */
export const DATA = process.env.CITEFLOW_DATA!;
export const MODELS = process.env.CITEFLOW_MODELS!;
if (!DATA || !MODELS) throw new Error("CITEFLOW_DATA and CITEFLOW_MODELS must be set (vitest.config.ts defaults them to the repository's data/ and tests/fixtures/models/)");

export async function firstSciFactDocs(n: number): Promise<CorpusDocument[]> {
  const docs: CorpusDocument[] = [];
  for await (const d of readBeirCorpus(join(DATA, "scifact", "corpus.jsonl"))) if (docs.push(d) >= n) break;
  return docs;
}

/** A LanceDB store of the first `n` SciFact abstracts, embedded with the offline static-use-en. */
export async function smallSciFactStore(n: number): Promise<{ store: string; docs: CorpusDocument[] }> {
  const docs = await firstSciFactDocs(n);
  const store = mkdtempSync(join(tmpdir(), "citeflow-store-"));
  const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
  await (await LanceStore.open(store)).ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
  return { store, docs };
}

/** Environment variables a test may set; each is restored after every test of the file. */
export function restoreEnvAfterEach(...names: string[]): void {
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  afterEach(() => {
    for (const n of names) saved[n] === undefined ? delete process.env[n] : (process.env[n] = saved[n]);
  });
}

/**
 * Hooks every template suite needs: a small SciFact store (built once), a loopback server closed
 * after each test, the offline NLI judge, and the model/server variables restored.
 * Read `store` and `docs` inside tests; start servers with `serve`.
 */
export function templateSuite(documents: number, ...extraEnv: string[]) {
  let server: Loopback | undefined;
  const ctx = {
    store: "",
    docs: [] as CorpusDocument[],
    /** Start a loopback server for this test; it is closed after the test. */
    serve: async (handler: Parameters<typeof loopback>[0]) => (server = await loopback(handler)),
  };
  beforeAll(async () => {
    Object.assign(ctx, await smallSciFactStore(documents));
  }, 120_000);
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  beforeEach(() => {
    // The templates judge citations with an NLI model; offline, the SciFact pair model.
    process.env.CITEFLOW_NLI_MODEL = "pair-nli-scifact";
  });
  restoreEnvAfterEach("CITEFLOW_NLI_MODEL", "CITEFLOW_STORE", "CITEFLOW_CHAT_MODEL", "OPENAI_BASE_URL", ...extraEnv);
  return ctx;
}
