import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The test fixtures' models folder: the committed small models, and tiny-bert-random made here. */
export const FIXTURE_MODELS = fileURLToPath(new URL("./fixtures/models", import.meta.url));

/**
 * Makes tiny-bert-random (random weights, a format fixture) in the fixtures' models folder the first
 * time, with the project's Python environment that `npm run models` made (numpy, onnx and the
 * all-MiniLM-L6-v2 package for the tokenizer). Nothing to do when $CITEFLOW_MODELS names another folder.
 */
export default function setup(): void {
  if (process.env.CITEFLOW_MODELS !== FIXTURE_MODELS) return;
  const out = join(FIXTURE_MODELS, "tiny-bert-random");
  if (existsSync(join(out, "onnx", "model.onnx"))) return;
  const py = fileURLToPath(new URL("../.citeflow/pyenv/bin/python", import.meta.url));
  if (!existsSync(py)) throw new Error(`${py} is missing: run \`npm run models\` (npm test does) to make the project's Python environment`);
  execFileSync(py, [fileURLToPath(new URL("./fixtures/tiny_bert.py", import.meta.url)), out], { stdio: "inherit" });
}
