/**
 * The browser-safe part of core (no Node imports): graph documents, port typing, canonical JSON and
 * citations. The JupyterLab extension imports only this.
 */
export * from "./ports.js";
export * from "./graph.js";
export { checkGraph, splitRef, type LoadOptions } from "./graph-check.js";
export * from "./canonical.js";
export * from "./citations.js";
export * from "./preview.js";
export * from "./views.js";
export * from "./calls.js";
export * from "./summary.js";
export { runMetrics } from "./metrics.js";
export type { Passage, Answer, Claim, Verdict, Question } from "./values.js";
export type { Catalogue, CatalogueNode } from "./registry.js";
export type { QuestionsGiven } from "./inputs.js";
export { reduceRunEvent, runKind, startedRun, storedNodeProgress, storedNodeStatus, type NodeStatus, type NodeProgress, type RunProgress, type StreamedRunEvent } from "./progress.js";
export { RUN_ORIGINS, type RunEvent, type RunOrigin } from "./events.js";
export { indexingProgress, type IndexingState } from "./indexing.js";
export type * from "./protocol.js";
export { COMM_TARGET, COMM_VERSION } from "./protocol.js";
export { evidenceInDocument, type EvidenceInDocument } from "./evidence.js";
export * from "./warnings.js";
