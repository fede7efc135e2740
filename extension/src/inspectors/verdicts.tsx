/** Claims with their verdicts in Verif.ai's colours, the closest evidence sentence, and corrections. */
import type { Claim, Verdict } from "@citeflow/core/browser";
import { trans } from "../i18n";

const LABELS = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"] as const;

export interface VerdictsProps {
  verdicts: Verdict[];
  claims?: Claim[];
  onCorrect?: (verdict: Verdict, label: string) => void;
}

export function VerdictsView({ verdicts, claims, onCorrect }: VerdictsProps) {
  const text = new Map((claims ?? []).map((c) => [c.id, c.text]));
  return (
    <ul className="cf-verdicts">
      {verdicts.map((v, i) => (
        <li key={`${v.claimId}/${v.passageId ?? ""}/${i}`} className={`cf-verdict cf-label-${v.label}`} data-claim={v.claimId}>
          <span className="cf-label">{v.label}</span> <span className="cf-claim">{text.get(v.claimId) ?? v.claimId}</span>
          {v.passageId && <span className="cf-mono"> → {v.passageId}</span>}
          {v.evidence && (
            <blockquote className="cf-evidence" title={trans.__("closest evidence sentence (similarity %1)", v.evidence.score.toFixed(3))}>
              {v.evidence.sentence}
            </blockquote>
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
      ))}
    </ul>
  );
}
