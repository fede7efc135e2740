import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { templatePath } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { completion, json, type Loopback } from "../models/loopback.js";
import { templateSuite } from "../scifact.js";
import { readJsonl } from "../helpers.js";

const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const DRAFT = "The first study found a clear effect on the outcome measured in this cohort [0].";
const FINAL = DRAFT + " A second study confirmed it in a larger and older population, with similar methods [1].";
const suite = templateSuite(40, "CITEFLOW_RERANK_MODEL");

/** Async: the loopback server answers from this process while the CLI runs. */
function cli(args: string[], env: Record<string, string | undefined>, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv, ...(cwd ? { cwd } : {}) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("citeflow synth (scripted LLM on loopback)", () => {
  let server: Loopback;
  const asked: string[] = [];
  /** Every prompt's last message, as the server got it. */
  const prompts: string[] = [];
  let env: Record<string, string | undefined> = {};
  let inFlight = 0;
  let most = 0;
  /** The scripted model: a question for an abstract, a draft, feedback, a revision, a pairwise and a rubric verdict. */
  let script: Parameters<typeof suite.serve>[0];
  beforeAll(async () => {
    server = await suite.serve(
      (script = async (req, res) => {
        // Each call takes 20 ms, so calls made at once overlap.
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        const user = req.body.messages.at(-1).content as string;
        prompts.push(user);
        if (user.startsWith("Below is the abstract")) {
          const title = user.split("\n")[2]!;
          asked.push(title);
          return json(res, 200, completion(`What is known about ${title.toLowerCase()}?`));
        }
        if (user.includes("Write a concise")) return json(res, 200, completion(DRAFT));
        if (user.includes("You review")) return json(res, 200, completion("Feedback: Add the second study.\nQuestion: none"));
        if (user.includes("Revise the answer")) return json(res, 200, completion(FINAL));
        if (user.startsWith("Two answers")) return json(res, 200, completion("B is longer and cites both studies.\nBetter: B"));
        if (user.startsWith("Score the answer")) {
          // Questions whose title has an even length score low on factuality: the rubric drops them.
          const q = /Question: What is known about (.*)\?/.exec(user)![1]!;
          return json(res, 200, completion(`Organisation: 5\nFactuality: ${q.length % 2 === 0 ? 3 : 5}`));
        }
        return json(res, 500, { error: { message: "unexpected prompt" } });
      }),
    );
    env = {
      CITEFLOW_CHAT_MODEL: "loopback-model",
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-synth-test-key-000000000000",
      CITEFLOW_RERANK_MODEL: "pair-rerank-scifact",
      CITEFLOW_NLI_MODEL: "pair-nli-scifact",
      CITEFLOW_STORE: suite.store,
    };
  }, 120_000);

  it("samples, asks, runs, filters and exports; a second invocation resumes without asking again; --parallel gives the same files", async () => {
    const out = mkdtempSync(join(tmpdir(), "citeflow-synth-"));
    most = 0;
    const r = await cli(["synth", "--store", suite.store, "--n", "4", "--out", out, "--seed", "3"], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(most).toBe(1);
    expect(r.stdout).toContain("4 abstracts → 4 questions → 4 finished runs (0 from an earlier invocation)");
    expect(r.stderr).toMatch(/runs +█+ 4\/4/);
    const tokens = /tokens: (\d+) prompt \+ (\d+) completion in (\d+) model calls/.exec(r.stdout)!;
    // 4 questions + per run: draft, feedback, edit, pairwise, rubric = 24 calls of 120 + 30 tokens.
    expect(tokens.slice(1).map(Number)).toEqual([24 * 120, 24 * 30, 24]);
    expect(asked.length).toBe(4);

    const questions = readJsonl(join(out, "questions.jsonl"));
    const low = questions.filter((q) => q.question.replace(/^What is known about (.*)\?$/, "$1").length % 2 === 0).length;
    expect(low > 0 && low < 4, `seed 3 should give both kinds; ${low} low`).toBe(true);
    const sft = [...readJsonl(join(out, "sft", "train.jsonl")), ...readJsonl(join(out, "sft", "validation.jsonl"))];
    expect(sft.length).toBe(4 - low);
    expect(sft.every((row) => row.messages[2].content.startsWith(FINAL.slice(0, 60)))).toBe(true);
    const dpo = [...readJsonl(join(out, "dpo", "train.jsonl")), ...readJsonl(join(out, "dpo", "validation.jsonl"))];
    expect(dpo.every((row) => row.rejected[0].content === DRAFT)).toBe(true);
    const card = readFileSync(join(out, "sft", "README.md"), "utf8");
    expect(card).toContain(`organisation ≥ 4.5 and factuality / citation accuracy ≥ 4.5: ${4 - low} answers kept, ${low} dropped`);
    expect(card).toContain("citeflow synth --store");
    const os = [...readJsonl(join(out, "openscholar", "train.jsonl")), ...readJsonl(join(out, "openscholar", "validation.jsonl"))];
    expect(os.filter((row) => row.type === "feedback_generation").length).toBe(4 - low);

    const again = await cli(["synth", "--store", suite.store, "--n", "4", "--out", out, "--seed", "3", "--min-factuality", "3"], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("4 finished runs (4 from an earlier invocation)");
    expect(asked.length).toBe(4);
    const all = [...readJsonl(join(out, "sft", "train.jsonl")), ...readJsonl(join(out, "sft", "validation.jsonl"))];
    expect(all.length).toBe(4);
    for (const f of ["sft/train.jsonl", "dpo/README.md", "questions.jsonl"]) expect(readFileSync(join(out, f), "utf8")).not.toContain("sk-synth-test-key");

    // --parallel: calls at once, and the same questions, runs and rows (the same filters as the resumed invocation) in the same order.
    const parallel = mkdtempSync(join(tmpdir(), "citeflow-synth-parallel-"));
    most = 0;
    const p = await cli(["synth", "--store", suite.store, "--n", "4", "--out", parallel, "--seed", "3", "--min-factuality", "3", "--parallel", "4"], env);
    expect(p.code, p.stderr + p.stdout).toBe(0);
    expect(most).toBeGreaterThan(1);
    expect(readFileSync(join(parallel, "questions.jsonl"), "utf8")).toBe(readFileSync(join(out, "questions.jsonl"), "utf8"));
    const done = (dir: string) => readJsonl(join(dir, "done.jsonl")).map((d) => [d.questionId, d.status]);
    expect(done(parallel)).toEqual(done(out).slice(0, 4));
    const rows = (dir: string) => [...readJsonl(join(dir, "sft", "train.jsonl")), ...readJsonl(join(dir, "sft", "validation.jsonl"))].map((row) => row.messages);
    expect(rows(parallel)).toEqual(rows(out));
  }, 300_000);

  it("--graph: a graph file in the working folder wins over the template of its name, and its relative file: prompts are read beside it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "citeflow-synth-graph-"));
    const graphs = join(dir, "graphs");
    mkdirSync(graphs);
    const doc = JSON.parse(readFileSync(templatePath("synth-openscholar"), "utf8")) as { name: string; nodes: Array<{ id: string; params: Record<string, unknown> }> };
    doc.name = "My synthetic data";
    doc.nodes.find((n) => n.id === "draft")!.params.prompt = "file:my-answer.txt";
    writeFileSync(join(graphs, "synth-openscholar"), JSON.stringify(doc));
    const answerPrompt = fileURLToPath(new URL("../../packages/nodes/prompts/openscholar.answer.v2.txt", import.meta.url));
    writeFileSync(join(graphs, "my-answer.txt"), `MY OWN PROMPT. ${readFileSync(answerPrompt, "utf8")}`);
    // Each test's server is closed after it: this one serves the same script.
    const own = await suite.serve(script);
    const ownEnv = { ...env, OPENAI_BASE_URL: own.url };
    const graphOf = (out: string) => new RunStore(join(out, "runs")).readRun(readJsonl(join(out, "done.jsonl"))[0]!.runId).graph.name;
    for (const [cwd, graph] of [
      [graphs, "synth-openscholar"],
      [dir, "graphs/synth-openscholar"],
    ] as const) {
      const out = mkdtempSync(join(tmpdir(), "citeflow-synth-"));
      const before = prompts.length;
      const r = await cli(["synth", "--store", suite.store, "--n", "1", "--out", out, "--seed", "3", "--graph", graph], ownEnv, cwd);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(graphOf(out), `${graph} from ${cwd}`).toBe("My synthetic data");
      expect(prompts.slice(before).filter((p) => p.startsWith("MY OWN PROMPT.")).length, `${graph} from ${cwd}`).toBe(1);
    }
  }, 120_000);

  it("says what is wrong: no LLM, filters nothing passes, a bad --n", async () => {
    const out = mkdtempSync(join(tmpdir(), "citeflow-synth-"));
    const noLlm = await cli(["synth", "--store", suite.store, "--n", "2", "--out", out], { ...env, CITEFLOW_CHAT_MODEL: undefined });
    expect(noLlm.code).toBe(2);
    expect(noLlm.stderr).toContain("synth needs a language model: no chat model is configured ($CITEFLOW_CHAT_MODEL) and no .gguf file is in the models folders");
    const none = await cli(["synth", "--store", suite.store, "--n", "2", "--out", out, "--min-year", "2100"], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("passes the filters (year 2100–any");
    expect((await cli(["synth", "--store", suite.store, "--n", "0", "--out", out], env)).code).toBe(2);
  }, 60_000);
});
