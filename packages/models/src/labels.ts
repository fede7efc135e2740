import { NLI_LABELS, type NliLabel } from "./interfaces.js";

/** How NLI models name their labels (SciFact and MNLI styles), onto Citeflow's. */
const LABEL_ALIASES: Record<string, NliLabel> = {
  support: "SUPPORT",
  supports: "SUPPORT",
  entailment: "SUPPORT",
  contradict: "CONTRADICT",
  contradiction: "CONTRADICT",
  refutes: "CONTRADICT",
  no_evidence: "NO_EVIDENCE",
  neutral: "NO_EVIDENCE",
  not_enough_info: "NO_EVIDENCE",
};

/** A model's label as one of Citeflow's NLI labels, or undefined. */
export function nliLabelOf(label: string): NliLabel | undefined {
  return LABEL_ALIASES[label.toLowerCase().replace(/[\s-]+/g, "_")];
}

/** Whether a model's labels cover SUPPORT, NO_EVIDENCE and CONTRADICT: an NLI model. */
export function nliLabelKind(labels: string[]): boolean {
  const mapped = new Set(labels.map(nliLabelOf));
  return NLI_LABELS.every((l) => mapped.has(l));
}
