/** An answer with its citations as links to the cited passage; citations outside the allowed set flagged. */
import type { Answer } from "@citeflow/core/browser";
import type { ReactNode } from "react";
import { trans } from "../i18n";

export interface AnswerProps {
  answer: Answer;
  onCite?: (passageId: string) => void;
}

export function AnswerView({ answer, onCite }: AnswerProps) {
  const invalid = new Map((answer.invalidCitations ?? []).map((c) => [c.marker, c.target]));
  const markers = [...new Set([...Object.keys(answer.citations ?? {}), ...invalid.keys()])].sort((a, b) => b.length - a.length);
  const parts: ReactNode[] = [];
  if (markers.length) {
    const re = new RegExp(markers.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
    let last = 0;
    for (const m of answer.text.matchAll(re)) {
      parts.push(answer.text.slice(last, m.index));
      const marker = m[0];
      const target = answer.citations[marker];
      if (invalid.has(marker) || !target) {
        parts.push(
          <span key={m.index} className="cf-cite cf-cite-invalid" title={trans.__("%1 cites %2, which the generator was not given", marker, invalid.get(marker) ?? "?")}>
            {marker}
          </span>,
        );
      } else {
        parts.push(
          <button key={m.index} className="cf-cite" data-passage={target} title={target} onClick={() => onCite?.(target)}>
            {marker}
          </button>,
        );
      }
      last = m.index! + marker.length;
    }
    parts.push(answer.text.slice(last));
  } else parts.push(answer.text);
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
