export { exportDataset, type ExportOptions, type ExportResult } from "./export.js";
export { forEachRunExamples, evidenceSpan, type AnswerExample, type EvidenceSpan, type NliExample, type Provenance, type RunExamples } from "./examples.js";
export { rowsFor, FORMATS, FORMAT_DOCS, NLI_LABELS, MNLI_MAPPING, type Format, type Row } from "./formats.js";
export { dedupe, split } from "./process.js";
export { normalise } from "./formats.js";
export { datasetCard, SOURCE_LICENCES } from "./card.js";
export { synthesize, type SynthOptions, type SynthResult } from "./synth.js";
export { toParquet } from "./parquet.js";
export { trainModel, trainEnvironment, ensureTrainEnvironment, TrainError, PYTHON_DIR, type TrainOptions, type TrainResult, type TrainTask } from "./train.js";
export { readGoldLabels, goldAnswer, goldPairs, goldRationales, goldTrue, sciFactLabel, type GoldLabels, type GoldPair, type GoldRationale } from "./gold.js";
export {
  importClaimSet,
  CLAIM_SETS,
  hashSplit,
  type ClaimSet,
  type ImportedPair,
  type ImportManifest,
  type ImportOptions,
  type ImportProblem,
  type ImportResult,
  type PairLabel,
} from "./claim-sets/index.js";
