export type { CorpusDocument, ReadProblem, ReadReport } from "./document.js";
export { readBeirCorpus, readJsonlCorpus, readPubMedQA, type FieldMap } from "./readers.js";
export { splitSentences } from "./sentences.js";
export { openScholarChunker, verifaiChunker, indexText, type Chunker, type VerifaiChunkerOptions } from "./chunkers.js";
export { weightedFusion, reciprocalRankFusion, type RankedList } from "./fusion.js";
export { perPaper, citationBoost, yearRange } from "./filters.js";
export { LanceStore, type StoreMeta, type IngestOptions, type IngestResult } from "./lance.js";
