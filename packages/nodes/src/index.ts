import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { NodeRegistry, type AnyNodeDefinition } from "@citeflow/core";
import { generateAnswer } from "./generate/generate-answer.js";
import { queryEnrich } from "./generate/query-enrich.js";
import { feedbackSelf } from "./generate/feedback-self.js";
import { refineEdit } from "./generate/refine-edit.js";
import { loopSelfFeedback } from "./generate/loop-self-feedback.js";
import { citePosthoc } from "./cite/cite-posthoc.js";
import { claimsExtract } from "./generate/claims-extract.js";
import { checkSufficiency } from "./generate/check-sufficiency.js";
import { rateRelevance } from "./rerank/rate-relevance.js";
import { judgePairwise } from "./eval/judge-pairwise.js";
import { judgeRubric } from "./eval/judge-rubric.js";
import { answerCompose } from "./generate/answer-compose.js";
import { evalCitations } from "./eval/eval-citations.js";
import { claimsSplit } from "./verify/claims-split.js";
import { verifyNli } from "./verify/verify-nli.js";
import { verifyLlm } from "./verify/verify-llm.js";
import { claimsFromQuestion } from "./verify/claims-from-question.js";
import { inputQuestion } from "./input/input-question.js";
import { inputQuestions } from "./input/input-questions.js";
import { listMerge } from "./list/list-merge.js";
import { listSelect } from "./list/list-select.js";
import { textTemplate } from "./text/text-template.js";
import { filterPerPaper } from "./filter/filter-per-paper.js";
import { filterJoinPaper } from "./filter/filter-join-paper.js";
import { rerankCrossEncoder } from "./rerank/rerank-cross-encoder.js";
import { retrieveDense } from "./retrieve/retrieve-dense.js";
import { retrieveHybrid } from "./retrieve/retrieve-hybrid.js";
import { retrieveLexical } from "./retrieve/retrieve-lexical.js";
import { searchArxiv } from "./search/search-arxiv.js";
import { searchCore } from "./search/search-core.js";
import { searchPubmed } from "./search/search-pubmed.js";
import { searchSemanticScholar } from "./search/search-semantic-scholar.js";

/** Every node type this package ships (one file each, under its family's folder); a registry finds one by its type. */
export const builtinNodes: AnyNodeDefinition[] = [
  inputQuestion,
  inputQuestions,
  textTemplate,
  listMerge,
  listSelect,
  retrieveLexical,
  retrieveDense,
  retrieveHybrid,
  rerankCrossEncoder,
  filterPerPaper,
  filterJoinPaper,
  searchSemanticScholar,
  searchCore,
  searchPubmed,
  searchArxiv,
  queryEnrich,
  generateAnswer,
  feedbackSelf,
  refineEdit,
  loopSelfFeedback,
  citePosthoc,
  claimsExtract,
  checkSufficiency,
  rateRelevance,
  judgePairwise,
  judgeRubric,
  answerCompose,
  claimsSplit,
  claimsFromQuestion,
  verifyNli,
  verifyLlm,
  evalCitations,
];

/** A registry holding the built-in nodes, plus any extra ones. */
export function createRegistry(extra: AnyNodeDefinition[] = []): NodeRegistry {
  return new NodeRegistry([...builtinNodes, ...extra]);
}

export { createServices, CiteflowServices, ModelsDirNotAllowed, type ModelRequest } from "./shared/services.js";
export { configFromEnv, type ServicesConfig, type ServicesPatch, type SearchService } from "./shared/config.js";
export { loadPrompt, promptPath } from "./shared/prompts.js";
export { EndpointNotAllowed } from "./shared/endpoints.js";
export { graphReach, type Reach } from "./shared/reach.js";
export { answerMessages, generateAnswer } from "./generate/generate-answer.js";
export { answerGrammar, citationGrammar, CITE_WITHIN, describeRule, quotable, quoteGrammar, QUOTES_MAX, refusalOrCite, refusalParting, type AnswerRule } from "./generate/answer-grammar.js";
export { JUDGE_ADAPTER_THRESHOLD, JUDGE_THRESHOLD, judgeThreshold, TRUE_FALSE } from "./verify/verify-llm.js";
export { CLAIM_MAX_CHARS, claimsSchema, sufficiencyAnswers, trueFalseSchema } from "./shared/structured.js";
export { chatChoices, questionsAtOnce, SERVED_PARALLEL } from "./shared/parallel.js";
export { chooseChat, describeChat, noChatReason, waitingFor, type ChatChoice, type LlmParams } from "./shared/llm.js";

/** The seed systems as template graphs shipped with this package (in templates/). */
export function templatePath(name: string): string {
  return fileURLToPath(new URL(`../templates/${name}.citeflow.json`, import.meta.url));
}

export function templateNames(): string[] {
  return readdirSync(fileURLToPath(new URL("../templates/", import.meta.url)))
    .filter((f) => f.endsWith(".citeflow.json"))
    .map((f) => f.replace(/\.citeflow\.json$/, ""))
    .sort();
}

/**
 * The one rule for naming a graph, in the CLI and in notebooks: an existing file wins (your own
 * `verifai` is never shadowed by the template), else a shipped template's name. `dir` is the folder
 * its `file:` prompts are read from: the file's own folder, none for a template.
 */
export function findGraph(ref: string): { path: string; dir?: string } {
  if (existsSync(ref)) {
    if (statSync(ref).isFile()) return { path: ref, dir: dirname(realpathSync(ref)) };
    throw new Error(`graph "${ref}" is ${statSync(ref).isFIFO() ? "a FIFO" : statSync(ref).isDirectory() ? "a folder" : "not a regular file"}: a graph file must be a regular file`);
  }
  if (templateNames().includes(ref)) return { path: templatePath(ref) };
  throw new Error(`no graph "${ref}": no such file, and not a template (${templateNames().join(", ")})`);
}
export { catalogueWithModels } from "./catalogue.js";
export { modelParamsOf } from "./shared/params.js";
