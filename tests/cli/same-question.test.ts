import { execFile } from "node:child_process";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { questionRuns } from "@citeflow/core";
import { citeflowTarget } from "@citeflow/kernel";
import { findGraph, templatePath } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { graph, run } from "citeflow";
import { questionsOf } from "../../extension/src/questions.js";
import { tempDir } from "../helpers.js";
import { restoreEnvAfterEach, smallSciFactStore } from "../scifact.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const QUESTION = "Vitamin D deficiency is associated with fractures.";

/** Every node's cache key in a run store's only run. */
function cacheKeys(runs: string): Record<string, string> {
  const store = new RunStore(runs);
  const [listing] = store.listRuns();
  return Object.fromEntries(store.readRun(listing!.runId).nodes.map((n) => [n.id, n.cacheKey]));
}

describe("one question, one run: the CLI, a notebook and the editor make the same inputs", () => {
  restoreEnvAfterEach("CITEFLOW_STORE", "CITEFLOW_NLI_MODEL", "CITEFLOW_CHAT_MODEL");

  it("gives every node of Verif.ai the same cache key from all three", async () => {
    const { store } = await smallSciFactStore(40);
    const env = { CITEFLOW_STORE: store, CITEFLOW_NLI_MODEL: "pair-nli-scifact", CITEFLOW_CHAT_MODEL: "none" };
    Object.assign(process.env, env);
    const [cli, notebook, editor] = [tempDir(), tempDir(), tempDir()];

    // The CLI.
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [bin, "run", "verifai", "--question", QUESTION, "--json"], { env: { ...process.env, ...env, CITEFLOW_RUNS: cli } }, (err, _out, stderr) =>
        err ? reject(new Error(stderr)) : resolve(),
      ),
    );
    // A notebook.
    await run("verifai", QUESTION, { runs: notebook, display: false });
    // The editor: the request its Run button sends over the citeflow comm, handled by the kernel's code.
    const doc = JSON.parse(readFileSync(templatePath("verifai"), "utf8"));
    const ended = new Promise<void>((resolve) => {
      const target = citeflowTarget({ id: "c", target: "citeflow", close: () => {}, send: (m) => (m as { event?: { type: string } }).event?.type === "run-end" && resolve() }, { runs: editor });
      target.onMessage({ id: 1, method: "run", graph: doc, ...questionsOf(doc, QUESTION) });
    });
    await ended;

    const keys = cacheKeys(cli);
    expect(Object.keys(keys).length).toBeGreaterThanOrEqual(8);
    expect(cacheKeys(notebook)).toEqual(keys);
    expect(cacheKeys(editor)).toEqual(keys);
  }, 120_000);

  it("names a graph by one rule: an existing file wins over a template's name, else the template; neither is an error naming the templates", () => {
    const dir = tempDir();
    const mine = { citeflow: 1, name: "my verifai", inputs: { question: { type: "Question" } }, nodes: [{ id: "q", type: "input.question", version: 1, params: {} }], edges: [] };
    writeFileSync(join(dir, "verifai"), JSON.stringify(mine));
    const cwd = process.cwd();
    try {
      expect(graph("verifai").doc.name).not.toBe("my verifai"); // no such file here: the template
      process.chdir(dir);
      expect(findGraph("verifai")).toEqual({ path: "verifai", dir: realpathSync(dir) });
      expect(graph("verifai").doc.name).toBe("my verifai");
      expect(() => findGraph("nope")).toThrow(/no graph "nope": no such file, and not a template \(.*verifai/);
    } finally {
      process.chdir(cwd);
    }
  });

  it("maps questions onto inputs by one rule", () => {
    const doc = (inputs: Record<string, string>) => ({ citeflow: 1, name: "g", inputs: Object.fromEntries(Object.entries(inputs).map(([k, type]) => [k, { type }])), nodes: [], edges: [] }) as never;
    const q = questionRuns(doc({ question: "Question" }), { question: "a" });
    expect(q).toEqual([{ inputs: { question: { id: expect.stringMatching(/^q-[0-9a-f]{12}$/), text: "a" } }, label: q[0]!.label }]);
    // A question set runs a Question graph once per question; a Question[] graph once on the set.
    expect(questionRuns(doc({ question: "Question" }), { questions: ["a", "b"] })).toHaveLength(2);
    expect(questionRuns(doc({ questions: "Question[]" }), { questions: ["a", "b"] })).toEqual([
      { inputs: { questions: [expect.objectContaining({ text: "a" }), expect.objectContaining({ text: "b" })] } },
    ]);
    expect(questionRuns(doc({ text: "Text" }), { question: "a" })[0]!.inputs).toEqual({ text: "a" });
    expect(() => questionRuns(doc({ n: "Number" }), { question: "a" })).toThrow(/graph input "n" is Number/);
    expect(() => questionRuns(doc({}), { question: "a" })).toThrow(/declares no inputs/);
    expect(() => questionRuns(doc({ question: "Question" }), {})).toThrow(/needs question \(Question\): give a question/);
  });
});
