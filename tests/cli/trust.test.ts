/**
 * A shared graph file is data: it cannot send a secret or a local file anywhere the user did not
 * configure. The graph here tries what a hostile one would: a server of its own, the key variable
 * of its choice, and prompts read from /etc/passwd, from ../ and through a symlink.
 */
import { execFile } from "node:child_process";
import { closeSync, cpSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const SECRET = "sk-live-0123456789abcdefghijklmn";
const DATA = process.env.CITEFLOW_DATA!;
const MODELS = process.env.CITEFLOW_MODELS!;

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd,
        env: { ...process.env, CITEFLOW_RUNS: join(cwd, "runs"), MY_SERVICE_TOKEN: SECRET, OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "", CITEFLOW_ALLOWED_ENDPOINTS: "", CITEFLOW_PROMPTS: "", ...env },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** question → BM25 over a 20-abstract store → generate.answer with the given params. */
function graph(dir: string, store: string, answer: Record<string, unknown>): string {
  const path = join(dir, "shared.citeflow.json");
  const doc = {
    citeflow: 1,
    name: "shared",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "q", type: "input.question", version: 1, params: {} },
      { id: "r", type: "retrieve.lexical", version: 1, params: { store, k: 3 } },
      { id: "g", type: "generate.answer", version: 3, params: { generator: "llm", model: "m", maxTokens: 20, retries: 0, ...answer } },
    ],
    edges: [
      { from: "q.question", to: "r.question" },
      { from: "q.question", to: "g.question" },
      { from: "r.passages", to: "g.passages" },
    ],
  };
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

/** Every file under a folder, as text. */
function everything(dir: string): string {
  const out: string[] = [];
  const walk = (p: string) => readdirSync(p, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(join(p, e.name)) : out.push(readFileSync(join(p, e.name), "utf8"))));
  walk(dir);
  return out.join("\n");
}

describe("graph files cannot reach what the user did not configure", () => {
  it("a server, a key variable and local files named by a shared graph: reported by validate, refused by run, nothing sent or stored", async () => {
    server = await loopback((_req, res) => json(res, 200, completion("Fine [1].")));
    const dir = tempDir();
    const store = join(dir, "store");
    expect((await cli(["ingest", join(DATA, "scifact", "corpus.jsonl"), "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS, "--limit", "20"], dir)).code).toBe(0);
    const url = `${server.url}/v1`;

    // Naming the key variable is not a param at all.
    const keyed = graph(dir, store, { baseUrl: url, apiKeyEnv: "MY_SERVICE_TOKEN" });
    const v0 = await cli(["validate", keyed], dir);
    expect(v0.code).toBe(1);
    expect(v0.stdout).toContain(`"apiKeyEnv" is not a param any more: a graph file cannot choose which secret is sent`);

    // A server and /etc/passwd: validate says both, run refuses before any request.
    const hostile = graph(dir, store, { baseUrl: url, prompt: "file:/etc/passwd" });
    const v1 = await cli(["validate", hostile], dir);
    expect(v1.code).toBe(0);
    expect(v1.stdout).toContain(`node "g" params.baseUrl sends requests to ${url}: refused when run (a server you have not configured or allowed)`);
    expect(v1.stdout).toMatch(/node "g" params\.prompt reads the file \/etc\/passwd: refused when run \(prompt file:\/etc\/passwd: \/etc\/passwd is outside the folders prompts are read from/);
    const r1 = await cli(["run", hostile, "-q", "Vitamin D and fractures", "--json"], dir);
    expect(r1.code).toBe(1);
    expect(r1.stdout).toContain("prompt file:/etc/passwd: /etc/passwd is outside the folders prompts are read from");
    const r2 = await cli(["run", graph(dir, store, { baseUrl: url }), "-q", "Vitamin D and fractures", "--json"], dir);
    expect(r2.code).toBe(1);
    expect(r2.stdout).toContain(
      `params.baseUrl names the server ${url}, which you have not configured: a graph file cannot choose where requests go. To allow it, run with --allow-endpoint ${server.url}`,
    );
    expect(server.requests).toHaveLength(0);

    // With consent to the server, /etc/passwd is still refused; ../ and a symlink out are refused too.
    mkdirSync(join(dir, "prompts"));
    symlinkSync("/etc/passwd", join(dir, "prompts", "innocent.txt"));
    for (const prompt of ["file:/etc/passwd", "file:../../../../etc/passwd", "file:prompts/innocent.txt"]) {
      const r = await cli(["run", graph(dir, store, { baseUrl: url, prompt }), "-q", "Vitamin D and fractures", "--allow-endpoint", server.url], dir);
      expect(r.code, prompt).toBe(1);
      expect(r.stdout + r.stderr, prompt).toMatch(/is outside the folders prompts are read from/);
    }
    expect(server.requests).toHaveLength(0);

    // Consented, with a prompt of the user's own: the request goes, without the key.
    writeFileSync(join(dir, "prompts", "mine.txt"), "Answer {{question.text}} from:\n{{#each passages}}[{{@number}}] {{text}}\n{{/each}}");
    const ok = await cli(["run", graph(dir, store, { baseUrl: url, prompt: "file:prompts/mine.txt" }), "-q", "Vitamin D and fractures", "--allow-endpoint", server.url], dir);
    expect(ok.code, ok.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer no-key");
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("root:");
    expect(everything(join(dir, "runs"))).not.toContain(SECRET);
    expect(everything(join(dir, "runs"))).not.toContain("root:x:0:0");

    // Run from another folder, the graph's own prompt folder is still the one read.
    const elsewhere = tempDir();
    const moved = await cli(["run", graph(dir, store, { baseUrl: url, prompt: "file:prompts/mine.txt" }), "-q", "Vitamin D and fractures", "--allow-endpoint", server.url], elsewhere);
    expect(moved.code, moved.stderr).toBe(0);

    // The configured server gets the configured key; --allow-endpoint takes URLs only.
    const configured = await cli(["run", graph(dir, store, { prompt: "file:prompts/mine.txt" }), "-q", "Vitamin D and fractures"], dir, { OPENAI_BASE_URL: url });
    expect(configured.code, configured.stderr).toBe(0);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const bad = await cli(["run", hostile, "-q", "x", "--allow-endpoint", "file:///etc"], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--allow-endpoint file:///etc: not an http(s) URL");
    expect(statSync(join(dir, "runs")).isDirectory()).toBe(true);
  }, 120_000);

  it("a models folder named by a shared graph: listed by validate, refused by run until allowed; a changed model in it is refused by file", async () => {
    const dir = tempDir();
    const store = join(dir, "store");
    expect((await cli(["ingest", join(DATA, "scifact", "corpus.jsonl"), "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS, "--limit", "5"], dir)).code).toBe(0);
    const theirs = join(dir, "their-models");
    const id = "citeflow/rerank-minilm-scifact";
    cpSync(fileURLToPath(new URL(`../../models/${id}`, import.meta.url)), join(theirs, id), { recursive: true });
    const path = join(dir, "rerank.citeflow.json");
    writeFileSync(
      path,
      JSON.stringify({
        citeflow: 1,
        name: "rerank",
        inputs: { question: { type: "Question" } },
        nodes: [
          { id: "q", type: "input.question", version: 1, params: {} },
          { id: "r", type: "retrieve.lexical", version: 1, params: { store, k: 3 } },
          { id: "x", type: "rerank.cross-encoder", version: 1, params: { model: id, modelsDir: theirs } },
        ],
        edges: [
          { from: "q.question", to: "r.question" },
          { from: "q.question", to: "x.question" },
          { from: "r.passages", to: "x.passages" },
        ],
      }),
    );
    const v = await cli(["validate", path], dir);
    expect(v.stdout).toContain(`node "x" params.modelsDir loads models from ${theirs}: refused when run (a models folder you have not configured or allowed)`);
    const refused = await cli(["run", path, "-q", "Vitamin D and fractures", "--json"], dir);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `params.modelsDir names the models folder ${theirs}, which you have not configured: a graph file cannot choose which model files run. To allow it, run with --allow-models-dir ${theirs}`,
    );
    const allowed = await cli(["run", path, "-q", "Vitamin D and fractures", "--allow-models-dir", theirs], dir);
    expect(allowed.code, allowed.stderr).toBe(0);
    // The same folder named by $CITEFLOW_MODELS needs no consent; a changed weights file in it is refused by name.
    const onnx = join(theirs, id, "onnx", "model_quantized.onnx");
    const fd = openSync(onnx, "r+");
    writeSync(fd, Buffer.alloc(64), 0, 64, 4096);
    closeSync(fd);
    const changed = await cli(["run", path, "-q", "Vitamin D and fractures", "--force", "--json"], dir, { CITEFLOW_MODELS: `${theirs}:${MODELS}` });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(`${onnx} does not match ${join(theirs, id, "SHA256SUMS")} (expected `);
  }, 120_000);

  it("a server's 401 that echoes the key is printed redacted; the run store holds no key", async () => {
    server = await loopback((req, res) => json(res, 401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}. Check https://example.org.` } }));
    const dir = tempDir();
    const store = join(dir, "store");
    expect((await cli(["ingest", join(DATA, "scifact", "corpus.jsonl"), "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS, "--limit", "5"], dir)).code).toBe(0);
    const r = await cli(["run", graph(dir, store, {}), "-q", "Vitamin D and fractures"], dir, { OPENAI_BASE_URL: `${server.url}/v1` });
    expect(r.code).toBe(1);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(r.stderr).toContain("Incorrect API key provided: [redacted]");
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(everything(join(dir, "runs"))).not.toContain(SECRET);
  }, 60_000);
});
