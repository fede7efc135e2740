import { mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = dirname(fileURLToPath(import.meta.url));
// The data and the small test models ship with the repository; $CITEFLOW_DATA and $CITEFLOW_MODELS override them.
process.env.CITEFLOW_DATA ||= join(root, "data");
process.env.CITEFLOW_MODELS ||= join(root, "tests", "fixtures", "models");

// Where `npm run models` installed the pretrained models (Gemma 3 270M GGUF, all-MiniLM-L6-v2).
const installed = process.env.CITEFLOW_MODELS_HOME || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "citeflow", "models");

const LLM_SUITES = ["tests/models/llama*.test.ts", "tests/nodes/local-llm.test.ts"];
const BROWSER_SUITES = ["tests/extension/lab-*.test.ts", "tests/extension/install.test.ts", "tests/extension/evidence.test.ts"];

export default defineConfig({
  test: {
    // Three groups, one after another. The browser suites (a real JupyterLab and Chromium each)
    // run alone and one at a time: a drag is pointer events and frames, and on two cores shared
    // with other suites it lost whole moves. The in-process LLM suites keep both cores busy
    // (llama.cpp), so they run last, on their own as well.
    projects: [
      { extends: true, test: { name: "suites", include: ["tests/**/*.test.ts"], exclude: [...LLM_SUITES, ...BROWSER_SUITES], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "browser", include: BROWSER_SUITES, fileParallelism: false, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: "local-llm", include: LLM_SUITES, sequence: { groupOrder: 2 } } },
    ],
    // Makes the generated fixtures (tiny-bert-random) the first time.
    globalSetup: ["tests/global-setup.ts"],
    // Tests import the built packages (dist), exactly what the CLI and other packages run.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: {
      // Suites see an empty models home, so that no model is found that they did not ask for (the
      // extractive baseline stays the baseline); the local-model suites ask for the installed ones.
      CITEFLOW_MODELS_HOME: mkdtempSync(join(tmpdir(), "citeflow-models-home-")),
      CITEFLOW_INSTALLED_MODELS: installed,
      // Runs a test records without naming a store (--runs, a runs param) go here, never into the
      // repository's ./.citeflow; tests of that default set CITEFLOW_RUNS to "" in a folder of their own.
      CITEFLOW_RUNS: mkdtempSync(join(tmpdir(), "citeflow-runs-home-")),
      // citeflow train's environment (PyTorch, ~6 GB): made once beside the models home, not per suite.
      CITEFLOW_TRAIN_VENV: process.env.CITEFLOW_TRAIN_VENV || join(dirname(installed), "train-venv"),
    },
  },
});
