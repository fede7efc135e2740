/**
 * Citeflow in one import, for notebooks and scripts:
 *
 *   import { graph, run, display } from "citeflow";
 *   const r = await run("verifai", "Vitamin D lowers the risk of fractures.");
 *   r.show("verify");
 */
export { graph, run, runQuestions, start, session, Run, LiveRun, registry, defaultRunsDir, richBundle, type RunInputs, type StartOptions, type SetOptions } from "./run.js";
export {
  bundleFor,
  viewBundle,
  previewView,
  passagesBundle,
  passagesHtml,
  FALLBACK_ROWS,
  answerBundle,
  verdictsBundle,
  CITEFLOW_MIME,
  VIEW_VERSION,
  VERDICT_COLOURS,
  type CiteflowView,
  type RunView,
  type RunNodeView,
  type PassagesView,
  type AnswerView,
  type VerdictsView,
  type NodeState,
} from "./mime.js";
export { scoreChart, Chart, VEGA_LITE_MIME } from "./vega.js";
export { sciFactStore, sciFactStoreDir, pdfStore, useOfflineModels, languageModel } from "./setup.js";
export { setDisplaySink, displaySink, showBundle, display, newDisplay, SHOWN_IN, type Display, type DisplaySink, type MimeBundle } from "./display.js";
export { templateNames, templatePath, createRegistry, builtinNodes, graphReach, type Reach, type ServicesConfig, type ServicesPatch } from "@citeflow/nodes";
export { services, configure, allowEndpoint, allowModelsDir, allow } from "./services.js";
export { Session, abortActiveRuns, type RunRequest } from "@citeflow/host";
export { RunStore } from "@citeflow/runstore";
export { dataFolder } from "./setup.js";
export { questionFromText, loadGraph, saveGraph, defineNode, type Passage, type Answer, type Claim, type Verdict, type Question, type GraphDoc, type CompiledGraph } from "@citeflow/core";
import { inspect } from "node:util";
import { setBundler } from "./display.js";
import { richBundle } from "./run.js";

/** `display(value)`: Citeflow's view when the value is a Citeflow value, else util.inspect text. */
setBundler((v) => richBundle(v) ?? { "text/plain": typeof v === "string" ? v : inspect(v, { depth: 4 }) });

export * as core from "@citeflow/core";
export * as retrieval from "@citeflow/retrieval";
export * as models from "@citeflow/models";
export * as evaluation from "@citeflow/eval";
export { exportRuns, train } from "./train.js";
