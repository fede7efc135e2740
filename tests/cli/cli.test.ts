import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { doc, tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const example = fileURLToPath(new URL("../../packages/nodes/graphs/claim-search-prompts.citeflow.json", import.meta.url));

function cli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env, CITEFLOW_RUNS: "" } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

// A per-question graph of built-in nodes only: question → prompt.
const perQuestion = () =>
  doc({ q: ["input.question"], prompt: ["text.template", { template: "Search query for: {{question.text}}" }] }, ["q.question->prompt.question"], { question: { type: "Question" } });

function setup() {
  const dir = tempDir();
  const graph = join(dir, "g.citeflow.json");
  writeFileSync(graph, JSON.stringify(perQuestion()));
  return { dir, graph };
}

describe("citeflow CLI", () => {
  it("validate: 0 for a valid graph, 1 with one line per problem naming node and field", async () => {
    const { dir, graph } = setup();
    expect(await cli(["validate", graph], dir)).toMatchObject({ code: 0, stdout: expect.stringContaining("valid") });
    const bad = perQuestion();
    bad.nodes[1].params.temperature = 0.2;
    bad.edges.push({ from: "ghost.out", to: "prompt.text" });
    writeFileSync(join(dir, "bad.citeflow.json"), JSON.stringify(bad));
    const r = await cli(["validate", "bad.citeflow.json"], dir);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toEqual([
      'bad.citeflow.json: error: node "prompt" params.temperature: unknown param "temperature" for text.template',
      'bad.citeflow.json: error: node "ghost" id: edge from unknown node "ghost" (dangling edge)',
    ]);
  });

  it("run's first lines name every model the graph uses: the language model with its adapter and card, the NLI model", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "base.gguf"), "x");
    mkdirSync(join(dir, "acme", "lora"), { recursive: true });
    writeFileSync(join(dir, "acme", "lora", "adapter.gguf"), "x");
    writeFileSync(join(dir, "acme", "lora", "README.md"), "# card");
    const env = { CITEFLOW_MODELS: dir, CITEFLOW_CHAT_MODEL: "base+acme/lora", CITEFLOW_NLI_MODEL: "pair-nli-scifact" };
    // Only the input node runs: the lines come from the graph, before anything is loaded.
    const r = await cli(["run", "verifai", "-q", "Does aspirin prevent stroke?", "--to", "question", "--runs", join(dir, "runs")], dir, env);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split("\n");
    // Neither file has a SHA256SUMS beside it: each is said to be unverified, unless the user opted in.
    const unverified = " (unverified: no SHA256SUMS beside it lists it)";
    expect(lines).toContain(
      `language model: base.gguf${unverified} with the LoRA adapter acme/lora (trained by Citeflow; card: ${join(dir, "acme", "lora", "README.md")})${unverified}, running in this process (llama.cpp, CPU)`,
    );
    expect(lines.filter((l) => l.startsWith("NLI: pair-nli-scifact"))).toHaveLength(1);
    const quiet = await cli(["run", "verifai", "-q", "Does aspirin prevent stroke?", "--to", "question", "--runs", join(dir, "runs")], dir, { ...env, CITEFLOW_UNVERIFIED_MODELS: "1" });
    expect(quiet.stderr.split("\n")).toContain(
      `language model: base.gguf with the LoRA adapter acme/lora (trained by Citeflow; card: ${join(dir, "acme", "lora", "README.md")}), running in this process (llama.cpp, CPU)`,
    );
    const none = await cli(["run", "verifai", "-q", "Does aspirin prevent stroke?", "--to", "question", "--runs", join(dir, "runs")], dir, { ...env, CITEFLOW_CHAT_MODEL: "none" });
    expect(none.stderr).toContain('language model: the extractive baseline, which is not a language model: the chat model is set to "none"');
  });

  it("usage errors exit 2", async () => {
    const { dir, graph } = setup();
    expect((await cli(["frobnicate"], dir)).code).toBe(2);
    expect((await cli(["run", graph, "--bogus"], dir)).code).toBe(2);
    expect((await cli(["run"], dir)).code).toBe(2);
    const both = await cli(["run", graph, "--question", "a", "--questions", "f.jsonl"], dir);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining("not both") });
    const none = await cli(["run", graph], dir);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining('needs question (Question): give a question (--question "…" or --questions <file.jsonl>)') });
    expect((await cli(["run", graph, "-q", "x", "--concurrency", "0"], dir)).code).toBe(2);
  });

  it("run --json prints one summary; a second run hits the cache", async () => {
    const { dir, graph } = setup();
    const first = await cli(["run", graph, "--question", "Does aspirin prevent stroke?", "--json"], dir);
    expect(first.code).toBe(0);
    const s1 = JSON.parse(first.stdout);
    expect(s1).toMatchObject({
      status: "ok",
      nodes: [
        { id: "q", status: "done", cache: "miss" },
        { id: "prompt", status: "done", cache: "miss" },
      ],
    });
    expect(typeof s1.runId).toBe("string");
    expect(typeof s1.nodes[0].ms).toBe("number");
    const s2 = JSON.parse((await cli(["run", graph, "--question", "Does aspirin prevent stroke?", "--json"], dir)).stdout);
    expect(s2.nodes.map((n: { cache: string }) => n.cache)).toEqual(["hit", "hit"]);
    const s3 = JSON.parse((await cli(["run", graph, "--question", "Does aspirin prevent stroke?", "--json", "--force"], dir)).stdout);
    expect(s3.nodes.map((n: { cache: string }) => n.cache)).toEqual(["miss", "miss"]);
    const out = await cli(["runs", "output", s1.runId, "prompt", "text"], dir);
    expect(JSON.parse(out.stdout)).toBe("Search query for: Does aspirin prevent stroke?");
  });

  it("run --to / --from / --override", async () => {
    const { dir, graph } = setup();
    const to = JSON.parse((await cli(["run", graph, "-q", "Q?", "--to", "q", "--json"], dir)).stdout);
    expect(to.nodes.map((n: { id: string }) => n.id)).toEqual(["q"]);
    const from = JSON.parse((await cli(["run", graph, "-q", "Q?", "--from", "prompt", "--json"], dir)).stdout);
    expect(from.nodes.map((n: { cache: string }) => n.cache)).toEqual(["hit", "miss"]);
    const ov = await cli(["run", graph, "-q", "Q?", "--json", "--override", 'q.question={"id":"o","text":"Overridden?"}'], dir);
    const s = JSON.parse(ov.stdout);
    expect(JSON.parse((await cli(["runs", "output", s.runId, "prompt", "text"], dir)).stdout)).toBe("Search query for: Overridden?");
    expect((await cli(["run", graph, "-q", "Q?", "--to", "ghost"], dir)).code).toBe(1);
  });

  it("runs a question set once per question for a Question graph, and fails on bad lines with their numbers", async () => {
    const { dir, graph } = setup();
    writeFileSync(join(dir, "qs.jsonl"), ['{"id":"a","question":"First?"}', '{"id":"b","claim":"Second."}', ""].join("\n"));
    const r = await cli(["run", graph, "--questions", "qs.jsonl", "--json"], dir);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.status).toBe("ok");
    expect(s.runs.map((x: { question: string }) => x.question)).toEqual(["a", "b"]);
    writeFileSync(join(dir, "bad.jsonl"), ['{"id":"a","question":"ok?"}', "{not json", '{"id":"c"}', '{"id":"a","text":"dup"}'].join("\n"));
    const bad = await cli(["run", graph, "--questions", "bad.jsonl"], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("3 bad line(s) in bad.jsonl");
    expect(bad.stderr).toContain("bad.jsonl:2: not valid JSON");
    expect(bad.stderr).toContain("bad.jsonl:3: no question text");
    expect(bad.stderr).toContain('bad.jsonl:4: duplicate id "a" (first on line 1)');
  });

  it("exits 1 when a node fails, and says which", async () => {
    const { dir } = setup();
    const g = doc({ t: ["text.template", { template: "{{question.text}}" }] });
    writeFileSync(join(dir, "fails.citeflow.json"), JSON.stringify(g));
    const r = await cli(["run", "fails.citeflow.json", "--json"], dir);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "error", nodes: [{ id: "t", status: "error", error: expect.stringContaining('"question.text" is undefined') }] });
  });

  it("runs list / show / diff, as text and JSON", async () => {
    const { dir, graph } = setup();
    const a = JSON.parse((await cli(["run", graph, "-q", "Q one?", "--json"], dir)).stdout).runId;
    const b = JSON.parse((await cli(["run", graph, "-q", "Q two?", "--json"], dir)).stdout).runId;
    const c = JSON.parse((await cli(["run", graph, "-q", "Q two?", "--to", "prompt", "--json"], dir)).stdout).runId;
    const list = JSON.parse((await cli(["runs", "list", "--json"], dir)).stdout);
    expect(list.map((r: { runId: string }) => r.runId).sort()).toEqual([a, b, c].sort());
    // Each run says what it was.
    expect(Object.fromEntries(list.map((r: { runId: string; kind: string }) => [r.runId, r.kind]))).toEqual({ [a]: "run", [b]: "run", [c]: "run to prompt" });
    expect((await cli(["runs", "list"], dir)).stdout).toMatch(/Q one\?/);
    const show = await cli(["runs", "show", a], dir);
    expect(show.stdout).toContain("prompt");
    expect(show.stdout).toContain("Search query for: Q one?");
    expect(JSON.parse((await cli(["runs", "show", a, "--json"], dir)).stdout).nodes).toHaveLength(2);
    const diff = JSON.parse((await cli(["runs", "diff", a, b, "--json"], dir)).stdout);
    expect(diff.inputs).toEqual(["question"]);
    expect(diff.nodes.find((n: { id: string }) => n.id === "prompt")).toMatchObject({ change: "changed", outputs: ["text"], params: [] });
    expect((await cli(["runs", "diff", a, b], dir)).stdout).toMatch(/prompt\s+changed/);
    expect((await cli(["runs", "show", "nope"], dir)).code).toBe(1);
  });

  it("catalogue lists node types; --json carries param JSON Schemas", async () => {
    const { dir } = setup();
    const text = await cli(["catalogue"], dir);
    expect(text.stdout).toMatch(/list\.select v1 — Select \/ limit/);
    const cat = JSON.parse((await cli(["catalogue", "--json"], dir)).stdout);
    const t = cat.nodes.find((n: { type: string }) => n.type === "text.template");
    expect(t.params.type).toBe("object");
    expect(t.params.properties.template.description).toMatch(/Mustache|missing variable/);
  });

  it("runs the shipped example graph on a question set", async () => {
    const { dir } = setup();
    writeFileSync(join(dir, "claims.jsonl"), ["cells divide", "risk of falls", "more cells", "low risk"].map((t, i) => JSON.stringify({ id: i, claim: t })).join("\n"));
    const r = await cli(["run", example, "--questions", "claims.jsonl", "--json"], dir);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    const text = JSON.parse((await cli(["runs", "output", s.runId, "prompt", "text"], dir)).stdout) as string;
    expect(text).toMatch(/1\. cells divide \(claim 0\)\n2\. risk of falls \(claim 1\)\n3\. more cells \(claim 2\)\n4\. low risk \(claim 3\)/);
  });
});
