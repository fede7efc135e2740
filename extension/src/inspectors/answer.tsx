/** An answer with its citations as links to the cited passage; citations outside the allowed set flagged. */
import { citationGroups, type Answer } from "@citeflow/core/browser";
import type { ReactNode } from "react";
import { trans } from "../i18n";

export interface AnswerProps {
  answer: Answer;
  onCite?: (passageId: string) => void;
}

export function AnswerView({ answer, onCite }: AnswerProps) {
  const invalid = new Map((answer.invalidCitations ?? []).map((c) => [c.marker, c.target]));
  // Markers are linked only where the citation parser finds them (citationGroups): never a bare digit elsewhere.
  const parts: ReactNode[] = [];
  let last = 0;
  for (const g of citationGroups(answer.text))
    for (const w of g.written) {
      parts.push(answer.text.slice(last, w.start));
      const target = answer.citations?.[w.marker];
      const text = answer.text.slice(w.start, w.end);
      if (invalid.has(w.marker) || !target) {
        parts.push(
          <span key={w.start} className="cf-cite cf-cite-invalid" title={trans.__("%1 cites %2, which the generator was not given", w.marker, invalid.get(w.marker) ?? "?")}>
            {text}
          </span>,
        );
      } else {
        parts.push(
          <button key={w.start} className="cf-cite" data-passage={target} title={target} onClick={() => onCite?.(target)}>
            {text}
          </button>,
        );
      }
      last = w.end;
    }
  parts.push(answer.text.slice(last));
  return (
    <div className="cf-answer">
      <div className="cf-answer-text">{parts}</div>
      {invalid.size > 0 && (
        <p className="cf-warning" role="status">
          {trans._n("%1 citation points outside the passages the generator was given", "%1 citations point outside the passages the generator was given", invalid.size)}
        </p>
      )}
    </div>
  );
}
