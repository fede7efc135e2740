/** A graph file's relative `file:` prompt is read from the file's own folder in a notebook too, as `citeflow run` reads it. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEmbedder } from "@citeflow/models";
import { LanceStore, openScholarChunker } from "@citeflow/retrieval";
import { configure, graph, start } from "citeflow";
import { completion, json, loopback } from "../models/loopback.js";
import { tempDir } from "../helpers.js";

describe("file: prompts from a notebook", () => {
  let close: (() => Promise<void>) | undefined;
  afterAll(async () => close?.());

  it("resolve in the graph file's folder, not the kernel's working folder", async () => {
    const server = await loopback((_req, res) => json(res, 200, completion("Fine [1].")));
    close = () => server.close();
    const dir = tempDir();
    const store = join(tempDir(), "store");
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [process.env.CITEFLOW_MODELS!] });
    await (
      await LanceStore.open(store)
    ).ingest([{ docId: "d1", title: "Works", text: "It works well in every trial.", metadata: { source: "jsonl" } }], {
      chunker: openScholarChunker(),
      chunkerName: "openscholar-256",
      embedder,
    });
    writeFileSync(join(dir, "mine.txt"), "FOLDER-PROMPT {{question.text}}\n{{#each passages}}[{{@number}}] {{text}}\n{{/each}}");
    const doc = {
      citeflow: 1,
      name: "prompt-folder",
      inputs: { question: { type: "Question" } },
      nodes: [
        { id: "q", type: "input.question", version: 1, params: {} },
        { id: "r", type: "retrieve.lexical", version: 1, params: { store, k: 1 } },
        { id: "g", type: "generate.answer", version: 2, params: { generator: "llm", model: "m", maxTokens: 10, retries: 0, prompt: "file:mine.txt" } },
      ],
      edges: [
        { from: "q.question", to: "g.question" },
        { from: "q.question", to: "r.question" },
        { from: "r.passages", to: "g.passages" },
      ],
    };
    writeFileSync(join(dir, "g.citeflow.json"), JSON.stringify(doc));
    configure({ chat: { baseUrl: `${server.url}/v1`, model: "m", apiKey: "" } });
    const g = graph(join(dir, "g.citeflow.json"));
    expect(g.folder).toBe(dir);
    const run = start(g, "Does it work?", { runs: tempDir(), display: false });
    await run.done;
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.body)).toContain("FOLDER-PROMPT Does it work?");
  }, 60_000);
});
