// Where the benchmarks read their data and their peer models: $CITEFLOW_DATA, else the SciFact and
// PubMedQA shipped in data/; $CITEFLOW_MODELS, else the small offline models in tests/fixtures/models
// (static-use-en and the static-vector pair models, the labelled baselines the figures compare
// against). Set here for the CLI commands a benchmark starts as well.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DATA = (process.env.CITEFLOW_DATA ||= join(root, "data"));
export const MODELS = (process.env.CITEFLOW_MODELS ||= join(root, "tests", "fixtures", "models"));

/** A temporary folder for one benchmark run, removed when the process exits (a stored index can take a gigabyte). */
export function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
