/**
 * A graph file's relative `file:` prompt is read from the file's own folder by every front end:
 * `citeflow run`, a notebook, and the editor (whose run request names the file's folder, as
 * JupyterLab serves it). The same prompt reaches the model and the node's cache key is the same.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadEmbedder } from "@citeflow/models";
import { LanceStore, openScholarChunker } from "@citeflow/retrieval";
import { RunStore } from "@citeflow/runstore";
import { configure, graph, start } from "citeflow";
import { citeflowTarget } from "../../kernel/dist/citeflow-comm.js";
import { completion, json, loopback } from "../models/loopback.js";
import { tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const QUESTION = "Does it work?";

describe("file: prompts from every front end", () => {
  let close: (() => Promise<void>) | undefined;
  afterAll(async () => close?.());

  it("resolve in the graph file's folder, not the working folder: the CLI, a notebook and the editor send the same prompt, under the same cache key", async () => {
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
        { id: "g", type: "generate.answer", version: 3, params: { generator: "llm", model: "m", maxTokens: 10, retries: 0, prompt: "file:mine.txt" } },
      ],
      edges: [
        { from: "q.question", to: "g.question" },
        { from: "q.question", to: "r.question" },
        { from: "r.passages", to: "g.passages" },
      ],
    };
    const file = join(dir, "g.citeflow.json");
    writeFileSync(file, JSON.stringify(doc));
    const cacheKey = (runs: string) => {
      const s = new RunStore(runs);
      return s.readRun(s.listRuns()[0]!.runId).nodes.find((n) => n.id === "g")!.cacheKey;
    };

    // The CLI, from another working folder.
    const cliRuns = tempDir();
    const cli = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, "run", file, "--question", QUESTION, "--runs", cliRuns],
        { cwd: tempDir(), env: { ...process.env, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "" } },
        (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    expect(cli.code, cli.stderr).toBe(0);

    // A notebook.
    configure({ chat: { baseUrl: `${server.url}/v1`, model: "m", apiKey: "" } });
    const g = graph(file);
    expect(g.folder).toBe(dir);
    const notebookRuns = tempDir();
    await start(g, QUESTION, { runs: notebookRuns, display: false }).done;

    // The editor: the document over the kernel's comm, with the folder of its file.
    const editorRuns = tempDir();
    const sent: Array<{ type: string; ok?: boolean; error?: unknown; event?: { type: string } }> = [];
    const handler = citeflowTarget({ id: "c", target: "citeflow", send: (d) => void sent.push(d as (typeof sent)[number]), close: () => undefined }, { runs: editorRuns });
    handler.onMessage({ id: 1, method: "run", graph: doc, folder: dir, question: QUESTION });
    expect(sent[0], JSON.stringify(sent[0])).toMatchObject({ type: "reply", ok: true });
    await expect.poll(() => sent.some((m) => m.type === "event" && m.event?.type === "run-end"), { timeout: 30_000 }).toBe(true);
    // A folder that is not absolute is refused, by name.
    handler.onMessage({ id: 2, method: "run", graph: doc, folder: "relative/dir", question: QUESTION });
    expect(sent.at(-1)).toMatchObject({ type: "reply", id: 2, ok: false, error: { message: '"folder" must be an absolute path, got "relative/dir"' } });

    expect(server.requests).toHaveLength(3);
    const prompts = server.requests.map((r) => JSON.stringify((r.body as { messages: unknown }).messages));
    expect(prompts[0]).toContain("FOLDER-PROMPT Does it work?");
    expect(new Set(prompts).size).toBe(1);
    const keys = [cliRuns, notebookRuns, editorRuns].map(cacheKey);
    expect(keys[0]).toMatch(/^[0-9a-f]{16,}$/);
    expect(new Set(keys).size).toBe(1);
    // Each run says which front end started it, and the CLI's list filters by it.
    expect([cliRuns, notebookRuns, editorRuns].map((runs) => new RunStore(runs).listRuns()[0]!.origin)).toEqual(["cli", "notebook", "editor"]);
    const list = (runs: string, ...more: string[]) => new Promise<string>((resolve) => execFile(process.execPath, [bin, "runs", "list", "--runs", runs, ...more], (_err, out) => resolve(out)));
    expect(await list(cliRuns)).toMatch(/\bcli\b/);
    expect(await list(cliRuns, "--origin", "editor")).toBe(`no runs started from the editor in ${cliRuns}\n`);
  }, 120_000);
});
