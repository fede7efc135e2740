import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installKernelspec } from "@citeflow/kernel";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { INSTALLED } from "../models/local.js";
import { DATA, MODELS } from "../scifact.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOTEBOOKS = join(ROOT, "notebooks");
/** Executed copies, with their outputs, are kept here as test artefacts (ignored by git). */
const ARTEFACTS = join(ROOT, "test-results", "notebooks");
const SECRET = "sk-notebook-secret-5f3a9c";

const work = mkdtempSync(join(tmpdir(), "citeflow-notebooks-"));
const base: Record<string, string> = {};

beforeAll(() => {
  installKernelspec({ prefix: work });
  // One run store for the file: the first notebook builds the SciFact store, the others reuse it.
  Object.assign(base, { JUPYTER_PATH: join(work, "share", "jupyter"), CITEFLOW_KERNEL: "citeflow", CITEFLOW_RUNS: join(work, "runs"), CITEFLOW_DATA: DATA, CITEFLOW_MODELS: MODELS });
  mkdirSync(ARTEFACTS, { recursive: true });
});

/** How long a notebook may run; the test's own limit is a little longer. */
const NOTEBOOK_MS = 1_500_000;

/**
 * Async: the loopback LLM server runs in this process and must keep answering meanwhile. Past
 * NOTEBOOK_MS the runner's process group is killed, and the Citeflow kernel, whose parent it was,
 * exits by itself: a kernel left running would slow every later test on the machine.
 */
async function execute(notebook: string, out: string, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const childEnv = { ...process.env, ...base, ...env };
  for (const k of ["CITEFLOW_CHAT_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "CITEFLOW_STORE", "CITEFLOW_NLI_MODEL", "CITEFLOW_RERANK_MODEL"]) if (!(k in env)) delete childEnv[k];
  const child = spawn("/usr/bin/python3", [join(ROOT, "tests", "kernel", "run_notebooks.py"), out, join(NOTEBOOKS, notebook)], { env: childEnv, detached: true });
  let output = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (output += b.toString()));
  const limit = setTimeout(() => {
    output += `\n${notebook}: still running after ${NOTEBOOK_MS / 1000} s: stopped`;
    process.kill(-child.pid!, "SIGKILL");
  }, NOTEBOOK_MS);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(limit);
  return { code, output };
}

/**
 * The training loop, shortened by the notebook's own switches: 40 training claims' retrieval runs and
 * 8 optimiser steps for the NLI model; 12 claims' answer prompts, 2 steps of 1 answer for the adapter,
 * and 2 held-out claims before and after. The adapter is trained on the installed Gemma 3 270M, and
 * compared with the shipped adapter `npm run models` installed beside it.
 */
const SHORT: Record<string, Record<string, string>> = {
  "close-the-loop.ipynb": {
    CITEFLOW_NOTEBOOK_CLAIMS: "40",
    CITEFLOW_TRAIN_MAX_STEPS: "8",
    CITEFLOW_NOTEBOOK_LM_CLAIMS: "12",
    CITEFLOW_NOTEBOOK_LM_STEPS: "2",
    CITEFLOW_NOTEBOOK_LM_BATCH: "1",
    CITEFLOW_NOTEBOOK_LM_HELDOUT: "2",
    CITEFLOW_MODELS: [MODELS, INSTALLED].join(delimiter),
    // The SciFact store the other notebooks share (all-MiniLM-L6-v2, now in a models folder, would build another).
    CITEFLOW_EMBEDDER: "static-use-en",
  },
};

const notebooks = readdirSync(NOTEBOOKS)
  .filter((f) => f.endsWith(".ipynb"))
  .sort();

describe("every notebook runs top to bottom offline (nbclient, Citeflow kernel)", () => {
  it("has one notebook per template plus synthetic data and the training loop", () => {
    expect(notebooks).toEqual(["arxivbot.ipynb", "close-the-loop.ipynb", "core-gpt.ipynb", "openscholar.ipynb", "synthetic-training-data.ipynb", "verifai.ipynb"]);
  });
  for (const nb of notebooks)
    it(
      nb,
      async () => {
        const r = await execute(nb, join(ARTEFACTS, "offline"), SHORT[nb] ?? {});
        expect(r.code, r.output).toBe(0);
        const done = JSON.parse(readFileSync(join(ARTEFACTS, "offline", nb), "utf8")) as { cells: Array<{ cell_type: string; outputs?: Array<{ output_type: string }> }> };
        const code = done.cells.filter((c) => c.cell_type === "code");
        expect(code.every((c) => (c.outputs ?? []).every((o) => o.output_type !== "error"))).toBe(true);
        expect(code.filter((c) => (c.outputs ?? []).length > 0).length).toBeGreaterThan(code.length / 2);
      },
      1_520_000,
    );
});

describe("notebooks against an LLM server (loopback, OpenAI protocol)", () => {
  let llm: Loopback;
  beforeAll(async () => {
    llm = await loopback((req, res) => {
      if (!req.path.endsWith("/chat/completions")) return json(res, 404, { error: { message: `no route ${req.path}` } });
      const prompt = JSON.stringify(req.body.messages).toLowerCase();
      if (prompt.includes("search query") || prompt.includes("query:")) return json(res, 200, completion("vitamin D supplementation fracture risk randomized trials"));
      if (prompt.includes("pieces of feedback")) return json(res, 200, completion("Feedback: Say how large the trials were.\nQuestion: vitamin D trial sample sizes"));
      if (prompt.includes("revise the answer"))
        return json(res, 200, completion("Vitamin D supplementation was studied in randomized trials of several thousand adults [0]. Results on fracture risk were mixed [1]."));
      if (prompt.includes("literature-review question")) return json(res, 200, completion("What do we know about the mechanisms behind this finding?"));
      return json(res, 200, completion("Vitamin D supplementation was studied in randomized trials [1]. Results on fracture risk were mixed [2]."));
    });
  });
  afterAll(() => llm.close());

  for (const nb of ["core-gpt.ipynb", "synthetic-training-data.ipynb"])
    it(`${nb} uses the configured LLM, and its key never reaches the notebook`, async () => {
      const before = llm.requests.length;
      const r = await execute(nb, join(ARTEFACTS, "llm"), { CITEFLOW_CHAT_MODEL: "loopback-model", OPENAI_BASE_URL: `${llm.url}/v1`, OPENAI_API_KEY: SECRET });
      expect(r.code, r.output).toBe(0);
      expect(llm.requests.length).toBeGreaterThan(before);
      expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
      const text = readFileSync(join(ARTEFACTS, "llm", nb), "utf8");
      expect(text).toContain("chat model loopback-model at ");
      expect(text).not.toContain(SECRET);
    }, 900_000);
});
