import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadEmbedder } from "@citeflow/models";
import { LanceStore, openScholarChunker, planIngest, type CorpusDocument } from "@citeflow/retrieval";
import { tempDir } from "../helpers.js";
import { MODELS } from "../scifact.js";

const doc = (docId: string, sha256: string, text: string): CorpusDocument => ({ docId, title: docId, text, metadata: { source: "pdf", sha256 } });

describe("planIngest: which documents of a folder or library to read again", () => {
  it("skips unchanged documents, replaces changed ones, and reads everything after an interrupted ingest", async () => {
    const store = await LanceStore.open(tempDir());
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    const o = { chunker: openScholarChunker(4), chunkerName: "openscholar-4", embedder };
    await store.ingest([doc("a", "h1", "one two three four five six"), doc("b", "h2", "seven eight nine")], o);
    const entries = [
      { docId: "a", sha256: "h1" },
      { docId: "b", sha256: "h2-changed" },
      { docId: "c", sha256: "h3" },
    ];
    const plan = await planIngest(store, entries);
    expect([...plan.unchanged]).toEqual(["a"]);
    expect(plan.changed).toEqual(["b"]);

    // A changed document's passages all go; the others stay.
    expect(await store.removeDocuments(plan.changed)).toBe(1);
    expect([...(await store.passages([{ id: "a#0" }, { id: "a#1" }, { id: "b#0" }])).keys()].sort()).toEqual(["a#0", "a#1"]);

    // An ingest that did not finish: nothing is taken as unchanged (stored passages are skipped by id instead).
    const meta = JSON.parse(readFileSync(store.metaPath, "utf8"));
    writeFileSync(store.metaPath, JSON.stringify({ ...meta, incomplete: true, updatedAt: new Date().toISOString() }));
    expect([...(await planIngest(store, entries)).unchanged]).toEqual([]);
  });
});
