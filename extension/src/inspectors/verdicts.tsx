/**
 * Claims with their verdicts in Verif.ai's colours, the closest evidence sentence marked inside its
 * passage (with its page, for PDFs), and corrections.
 */
import type { Claim, Passage, Verdict } from "@citeflow/core/browser";
import { EvidenceSpan, type ShowPage } from "./evidence";
import { trans } from "../i18n";

const LABELS = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"] as const;

export interface VerdictsProps {
  verdicts: Verdict[];
  claims?: Claim[];
  onCorrect?: (verdict: Verdict, label: string) => void;
  /** The passages the verdicts cite: each evidence sentence is shown marked inside its passage. */
  passages?: Passage[] | undefined;
  /** Renders a PDF passage's page with the span marked (the editor, through the kernel). */
  onShowPage?: ShowPage | undefined;
}

export function VerdictsView({ verdicts, claims, onCorrect, passages, onShowPage }: VerdictsProps) {
  const text = new Map((claims ?? []).map((c) => [c.id, c.text]));
  const byId = new Map((passages ?? []).map((p) => [p.id, p]));
  return (
    <ul className="cf-verdicts">
      {verdicts.map((v, i) => (
        <li key={`${v.claimId}/${v.passageId ?? ""}/${i}`} className={`cf-verdict cf-label-${v.label}`} data-claim={v.claimId}>
          <span className="cf-label">{v.label}</span> <span className="cf-claim">{text.get(v.claimId) ?? v.claimId}</span>
          {v.passageId && <span className="cf-mono"> → {v.passageId}</span>}
          {v.evidence && <EvidenceSpan evidence={v.evidence} passage={byId.get(v.evidence.passageId)} onShowPage={onShowPage} />}
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
      ))}
    </ul>
  );
}
