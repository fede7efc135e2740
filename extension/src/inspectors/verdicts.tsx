/**
 * Claims with their verdicts in Verif.ai's colours, the closest evidence sentence marked inside its
 * passage (with its page, for PDFs), and corrections.
 */
import type { Claim, CorrectionView, Passage, Verdict } from "@citeflow/core/browser";
import { EvidenceSpan, type ShowPage } from "./evidence";
import { trans } from "../i18n";

const LABELS = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"] as const;

export interface VerdictsProps {
  verdicts: Verdict[];
  claims?: Claim[];
  onCorrect?: (verdict: Verdict, label: string) => void;
  /** Corrections recorded on these verdicts: the latest for a verdict is shown as its label, the model's struck through. */
  corrections?: CorrectionView[];
  /** The passages the verdicts cite: each evidence sentence is shown marked inside its passage. */
  passages?: Passage[] | undefined;
  /** Renders a PDF passage's page with the span marked (the editor, through the kernel). */
  onShowPage?: ShowPage | undefined;
}

/** The label the latest verdict correction gives this verdict (one for its claim alone covers each of its passages). */
function correctedLabel(v: Verdict, corrections: CorrectionView[]): string | undefined {
  let label: string | undefined;
  for (const c of corrections) if (c.kind === "verdict" && c.claimId === v.claimId && (c.passageId === undefined || c.passageId === v.passageId)) label = c.label;
  return label;
}

export function VerdictsView({ verdicts, claims, onCorrect, corrections = [], passages, onShowPage }: VerdictsProps) {
  const text = new Map((claims ?? []).map((c) => [c.id, c.text]));
  const byId = new Map((passages ?? []).map((p) => [p.id, p]));
  return (
    <ul className="cf-verdicts">
      {verdicts.map((v, i) => {
        const corrected = correctedLabel(v, corrections);
        return (
          <li key={`${v.claimId}/${v.passageId ?? ""}/${i}`} className={`cf-verdict cf-label-${corrected ?? v.label}`} data-claim={v.claimId} {...(corrected ? { "data-corrected": corrected } : {})}>
            {corrected ? (
              <>
                <span className="cf-label">{corrected}</span>{" "}
                <s className="cf-muted" title={trans.__("The model's label, corrected by you")}>
                  {v.label}
                </s>{" "}
                <span className="cf-muted">✎ {trans.__("corrected")}</span>
              </>
            ) : (
              <span className="cf-label">{v.label}</span>
            )}{" "}
            {v.about === "question" && <span className="cf-muted">{trans.__("The question, against what the answer states:")} </span>}
            <span className="cf-claim">{text.get(v.claimId) ?? v.claimId}</span>
            {v.passageId && <span className="cf-mono"> → {v.passageId}</span>}
            {v.evidence && <EvidenceSpan evidence={v.evidence} passage={byId.get(v.evidence.passageId)} onShowPage={onShowPage} />}
            {v.calibration && (
              <div className="cf-calibration" title={v.calibration.rule}>
                {trans.__("calibrated confidence %1", v.calibration.confidence.toFixed(2))} ·{" "}
                {trans.__("cannot tell while P(supported) is between %1 and %2", v.calibration.band[0].toFixed(2), v.calibration.band[1].toFixed(2))}
                {v.label === "CANNOT_TELL" && ` · ${trans.__("forced: %1", v.calibration.forced)}`}
                {v.label === "NO_EVIDENCE" &&
                  v.calibration.evidence !== undefined &&
                  v.calibration.evidenceFloor !== undefined &&
                  ` · ${trans.__("no sentence read gives SUPPORT or CONTRADICT %1 (strongest: %2)", v.calibration.evidenceFloor.toFixed(3), v.calibration.evidence.toFixed(3))}`}
                {v.about === "question" && (v.label === "CANNOT_TELL" || v.label === "NO_EVIDENCE") && <strong> · {trans.__("the quoted sentences may not answer the question")}</strong>}
              </div>
            )}
            <div className="cf-probs">
              {Object.entries(v.probabilities ?? {}).map(([k, p]) => (
                <span key={k}>
                  {k} {p.toFixed(2)}{" "}
                </span>
              ))}
            </div>
            {onCorrect && (
              <label className="cf-correct">
                {trans.__("Correct to")}{" "}
                <select aria-label={trans.__("Correct the verdict")} value="" onChange={(e) => e.target.value && onCorrect(v, e.target.value)}>
                  <option value="">…</option>
                  {LABELS.filter((l) => l !== v.label).map((l) => (
                    <option key={l} value={l}>
                      {l}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </li>
        );
      })}
    </ul>
  );
}
