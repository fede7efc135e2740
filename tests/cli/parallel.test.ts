/** citeflow run --questions --parallel N: N questions in flight against a served model, results as a one-at-a-time run gives them. */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doc, tempDir } from "../helpers.js";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { SetProgress } from "../../packages/cli/dist/progress.js";
import { SetTally } from "@citeflow/core";
import { configFromEnv, createServices } from "@citeflow/nodes";
import { graph, runQuestions, setDisplaySink } from "citeflow";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

function cli(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A served model that takes `ms` a call, answers from the question it was sent, and counts the most calls it had at once. */
function servedModel(ms: number) {
  const s = { server: undefined as unknown as Loopback, inFlight: 0, most: 0 };
  beforeAll(async () => {
    s.server = await loopback(async (req, res) => {
      s.most = Math.max(s.most, ++s.inFlight);
      await new Promise((r) => setTimeout(r, ms));
      s.inFlight--;
      const n = /Q(\d+)/.exec(JSON.stringify(req.body.messages))?.[1] ?? "?";
      json(res, 200, completion(`trials of vitamin Q${n}`));
    });
  });
  afterAll(() => s.server.close());
  return s;
}

describe("citeflow run --questions --parallel", () => {
  const model = servedModel(150);

  it("keeps N calls in flight, and gives the same runs, outputs and order as one question at a time", async () => {
    const dir = tempDir();
    const graph = join(dir, "g.citeflow.json");
    writeFileSync(graph, JSON.stringify(doc({ q: ["input.question"], enrich: ["query.enrich", {}] }, ["q.question->enrich.question"], { question: { type: "Question" } })));
    writeFileSync(join(dir, "qs.jsonl"), Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: `q${i}`, question: `Does vitamin Q${i} prevent fractures?` })).join("\n"));
    const env = { CITEFLOW_CHAT_MODEL: "served-model", OPENAI_BASE_URL: `${model.server.url}/v1`, OPENAI_API_KEY: "sk-test" };
    // Each mode in its own run store: no answer comes from the other's cache.
    const set = async (runs: string, ...more: string[]) => {
      model.most = 0;
      const r = await cli(["run", graph, "--questions", "qs.jsonl", "--runs", join(dir, runs), ...more], dir, env);
      expect(r.code, r.stderr).toBe(0);
      return { r, most: model.most };
    };
    const one = await set("one", "--json", "--parallel", "1");
    const four = await set("four", "--json", "--parallel", "4");
    expect(one.most).toBe(1);
    expect(four.most).toBe(4);
    // Without --parallel, a graph whose every language model is served runs 4 at once, or the server's limit, and says so.
    const served = await set("served");
    expect(served.most).toBe(4);
    expect(served.r.stderr).toContain("questions at once: 4 (every language model here is served; --parallel 1 runs them one at a time)");
    model.most = 0;
    const limited = await cli(["run", graph, "--questions", "qs.jsonl", "--runs", join(dir, "limited"), "--json"], dir, { ...env, CITEFLOW_SERVER_CONCURRENCY: "2" });
    expect([limited.code, model.most]).toEqual([0, 2]);
    const runsOf = (r: { stdout: string }) => JSON.parse(r.stdout).runs as Array<{ runId: string; question: string; status: string; nodes: Array<{ id: string; status: string }> }>;
    const shape = (r: { stdout: string }) => runsOf(r).map(({ question, status, nodes }) => ({ question, status, nodes: nodes.map((n) => [n.id, n.status]) }));
    expect(shape(four.r)).toEqual(shape(one.r));
    expect(runsOf(four.r).map((x) => x.question)).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7"]);
    const queries = async (r: { stdout: string }, runs: string) =>
      Promise.all(runsOf(r).map(async (x) => JSON.parse((await cli(["runs", "output", x.runId, "enrich", "query", "--runs", join(dir, runs)], dir, env)).stdout).text));
    const expected = Array.from({ length: 8 }, (_, i) => `trials of vitamin Q${i}`);
    expect(await queries(one.r, "one")).toEqual(expected);
    expect(await queries(four.r, "four")).toEqual(expected);

    // In words: a line per run, in the set's order, each named by its question.
    const words = await set("words", "--parallel", "3");
    expect(words.most).toBe(3);
    const lines = words.r.stderr.split("\n").filter((l) => / run \S+: ok in /.test(l));
    expect(lines.map((l) => /^\[(q\d)\]/.exec(l)?.[1])).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7"]);
    const refused = await cli(["run", graph, "--questions", "qs.jsonl", "--parallel", "0"], dir, env);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--parallel must be a whole number ≥ 1, got "0"')]);
  }, 120_000);
});

describe("a 429 storm against a set run in parallel", () => {
  it("a 429 with Retry-After is retried and every run still ends ok with its own answer", async () => {
    // Which questions reached the server, in order. (How long every client of a server waits after its 429 is
    // serverFetch's, timed on a fake clock in tests/models/server-fetch.test.ts.)
    const arrivals: string[] = [];
    const server = await loopback(async (req, res) => {
      const q = /Q(\d+)/.exec(JSON.stringify(req.body.messages))?.[1] ?? "?";
      arrivals.push(q);
      if (req.n === 2) {
        res.writeHead(429, { "content-type": "application/json", "retry-after-ms": "600" });
        res.end(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }));
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
      json(res, 200, completion(`trials of vitamin Q${q}`));
    });
    try {
      const dir = tempDir();
      const graph = join(dir, "g.citeflow.json");
      writeFileSync(graph, JSON.stringify(doc({ q: ["input.question"], enrich: ["query.enrich", {}] }, ["q.question->enrich.question"], { question: { type: "Question" } })));
      writeFileSync(join(dir, "qs.jsonl"), Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: `q${i}`, question: `Does vitamin Q${i} prevent fractures?` })).join("\n"));
      const env = { CITEFLOW_CHAT_MODEL: "served-model", OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" };
      const r = await cli(["run", graph, "--questions", "qs.jsonl", "--runs", join(dir, "runs"), "--json", "--parallel", "4"], dir, env);
      expect(r.code, r.stderr).toBe(0);
      const runs = JSON.parse(r.stdout).runs as Array<{ runId: string; status: string }>;
      expect(runs.map((x) => x.status)).toEqual(Array(8).fill("ok"));
      // 8 answers and the one retried call: the refused question reached the server twice, every other once.
      expect(arrivals).toHaveLength(9);
      expect(new Set(arrivals).size).toBe(8);
      expect(arrivals.filter((q) => q === arrivals[2]).length).toBe(2);
      const texts = await Promise.all(runs.map(async (x) => JSON.parse((await cli(["runs", "output", x.runId, "enrich", "query", "--runs", join(dir, "runs")], dir, env)).stdout).text));
      expect(texts).toEqual(Array.from({ length: 8 }, (_, i) => `trials of vitamin Q${i}`));
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe("the question set's line", () => {
  it("counts questions done, in flight and failed, the pace a minute, the tokens generated a second and the time left", () => {
    const written: string[] = [];
    const out = { write: (t: string) => written.push(t) } as unknown as NodeJS.WriteStream;
    const tally = new SetTally(10, 0);
    for (let i = 0; i < 4; i++) tally.started();
    tally.finished(true, 90);
    tally.finished(false, 30);
    // 2 of 10 done in the first minute: 2 a minute, 120 tokens in 60 s, 8 left, 4 minutes.
    expect(tally.text(60_000)).toMatch(/^questions 2\/10 · 2 in flight · 1 failed · 2\.0 a minute · 2\.0 tokens\/s · 4 min left$/);
    // Off a terminal only the lines are written, never the set's line.
    const set = new SetProgress(out, false);
    set.show(tally.text());
    set.line("run a: ok");
    expect(written).toEqual(["run a: ok\n"]);
  });
});

describe("notebooks: runQuestions", () => {
  const model = servedModel(100);

  it("runs a set as citeflow run does (4 at once against a served model, or as asked), the runs in the questions' order, with one display line for the set", async () => {
    const shown: Array<{ text: string; id?: string; update?: boolean }> = [];
    setDisplaySink({ show: (bundle, o) => void shown.push({ text: String(bundle["text/plain"]), ...o }) });
    try {
      const services = createServices(configFromEnv({ CITEFLOW_CHAT_MODEL: "served-model", OPENAI_BASE_URL: `${model.server.url}/v1`, OPENAI_API_KEY: "sk-test" }));
      const g = graph(doc({ q: ["input.question"], enrich: ["query.enrich", {}] }, ["q.question->enrich.question"], { question: { type: "Question" } }));
      const questions = Array.from({ length: 8 }, (_, i) => ({ id: `q${i}`, text: `Does vitamin Q${i} prevent fractures?` }));
      const set = async (runs: string, parallel?: number) => {
        model.most = 0;
        const out = await runQuestions(g, questions, { services, runs: join(tempDir(), runs), ...(parallel !== undefined ? { parallel } : {}) });
        return { out, most: model.most };
      };
      const served = await set("served");
      const one = await set("one", 1);
      expect([served.most, one.most]).toEqual([4, 1]);
      for (const { out } of [served, one]) {
        expect(out.map((r) => r.status)).toEqual(Array(8).fill("ok"));
        expect(out.map((r) => (r.output("enrich", "query") as { text: string }).text)).toEqual(questions.map((_, i) => `trials of vitamin Q${i}`));
      }
      // The same questions are the same runs: the same cache keys in both sets.
      expect(served.out.map((r) => r.node("enrich").cacheKey)).toEqual(one.out.map((r) => r.node("enrich").cacheKey));
      // One display per set, updated in place: no display per run.
      const ids = [...new Set(shown.map((s) => s.id))];
      expect(ids).toHaveLength(2);
      expect(shown.filter((s) => s.id === ids[0]).at(-1)!.text).toMatch(/^questions 8\/8 · 0 in flight · 0 failed · [\d.]+ a minute · [\d.]+ tokens\/s$/);
    } finally {
      setDisplaySink(undefined);
    }
  }, 60_000);
});
