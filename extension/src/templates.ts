/** The template graphs Citeflow ships, bundled as data (the same files `citeflow templates` lists). */
import type { GraphDoc } from "@citeflow/core/browser";
import arxivbot from "@citeflow/nodes/templates/arxivbot.citeflow.json";
import coreGpt from "@citeflow/nodes/templates/core-gpt.citeflow.json";
import openscholar from "@citeflow/nodes/templates/openscholar.citeflow.json";
import synth from "@citeflow/nodes/templates/synth-openscholar.citeflow.json";
import verifai from "@citeflow/nodes/templates/verifai.citeflow.json";

export const TEMPLATES: Record<string, GraphDoc> = {
  verifai: verifai as GraphDoc,
  "core-gpt": coreGpt as GraphDoc,
  openscholar: openscholar as GraphDoc,
  arxivbot: arxivbot as GraphDoc,
  "synth-openscholar": synth as GraphDoc,
};
