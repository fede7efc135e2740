/** sciFactStore uses the SciFact store the lab prepared ($CITEFLOW_STORE) instead of indexing the corpus again, and says how a build goes. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadEmbedder } from "@citeflow/models";
import { LanceStore, openScholarChunker, readBeirCorpus } from "@citeflow/retrieval";
import { sciFactStore, setDisplaySink, useOfflineModels } from "citeflow";
import { tempDir } from "../helpers.js";

const saved = { data: process.env.CITEFLOW_DATA, store: process.env.CITEFLOW_STORE };
afterEach(() => {
  for (const [k, v] of [
    ["CITEFLOW_DATA", saved.data],
    ["CITEFLOW_STORE", saved.store],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  vi.restoreAllMocks();
});

describe("sciFactStore", () => {
  it("takes a whole SciFact store from $CITEFLOW_STORE as it is; else builds its own, printing its progress", async () => {
    // A three-abstract "SciFact" data folder, and a store of it made beforehand (as npm run lab does).
    const data = tempDir();
    mkdirSync(join(data, "scifact"));
    const lines = readFileSync(join(saved.data!, "scifact", "corpus.jsonl"), "utf8")
      .trim()
      .split("\n")
      .slice(0, 3);
    writeFileSync(join(data, "scifact", "corpus.jsonl"), lines.join("\n") + "\n");
    process.env.CITEFLOW_DATA = data;
    const prepared = tempDir();
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [process.env.CITEFLOW_MODELS!] });
    await (await LanceStore.open(prepared)).ingest(readBeirCorpus(join(data, "scifact", "corpus.jsonl")), { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
    process.env.CITEFLOW_STORE = prepared;
    const runs = tempDir();
    expect(await sciFactStore({ runs })).toBe(prepared);

    // A store of something else is not taken: its own is built under the runs folder, with progress on stderr.
    const other = tempDir();
    await (
      await LanceStore.open(other)
    ).ingest([{ docId: "x", title: "Other", text: "Another corpus entirely.", metadata: { source: "jsonl" } }], { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
    process.env.CITEFLOW_STORE = other;
    const said: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((t) => (said.push(String(t)), true));
    const built = await sciFactStore({ runs });
    expect(built.startsWith(join(runs, "stores"))).toBe(true);
    expect(said.join("")).toMatch(/sciFactStore: 3 of 3 abstracts indexed in /);

    // In a notebook (a display sink), one output line updated in place instead, and nothing on stderr.
    said.length = 0;
    const shown: Array<{ text: string; id?: string; update?: boolean }> = [];
    setDisplaySink({ show: (bundle, o) => void shown.push({ text: String(bundle["text/plain"]), ...o }) });
    try {
      const again = await sciFactStore({ runs: tempDir() });
      expect(said.join("")).toBe("");
      expect(shown.at(-1)!.text).toBe(`SciFact indexed: 3 abstracts in ${again}`);
      expect(new Set(shown.map((s) => s.id)).size).toBe(1);
      expect(shown.slice(1).every((s) => s.update)).toBe(true);
      // The models the notebook's runs use are said there too, not in the red stderr box.
      const nli = process.env.CITEFLOW_NLI_MODEL;
      delete process.env.CITEFLOW_NLI_MODEL;
      try {
        useOfflineModels();
      } finally {
        if (nli !== undefined) process.env.CITEFLOW_NLI_MODEL = nli;
      }
      expect(shown.at(-1)!.text).toMatch(/^nli: /);
      expect(said.join("")).toBe("");
    } finally {
      setDisplaySink(undefined);
    }
  }, 120_000);
});
