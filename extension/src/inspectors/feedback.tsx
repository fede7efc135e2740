/** The self-feedback iteration tree: feedback item → retrieval → edit, with a before/after diff. */
import type { FeedbackIteration } from "../feedback";
import { trans } from "../i18n";
import { WordDiff } from "./worddiff";

export function FeedbackTree({ iterations }: { iterations: FeedbackIteration[] }) {
  if (!iterations.length) return <p className="cf-muted">{trans.__("No feedback items (the loop was skipped or the model asked for nothing).")}</p>;
  return (
    <ol className="cf-feedback-tree">
      {iterations.map((it) => (
        <li key={it.n} data-iteration={it.n}>
          <div>
            <b>{trans.__("Feedback %1", it.n)}</b> {it.feedback.text}
            {it.ms !== undefined && <span className="cf-muted"> ({Math.round(it.ms)} ms)</span>}
          </div>
          {it.error && <p className="cf-error">{it.error}</p>}
          <ul>
            {it.retrieval && (
              <li className="cf-feedback-retrieval">
                {trans.__("Retrieval")}: <q>{it.retrieval.query}</q> → {it.retrieval.added.length ? <span className="cf-mono">{it.retrieval.added.join(", ")}</span> : trans.__("nothing new")}
              </li>
            )}
            {it.edit && (
              <li className={`cf-feedback-edit ${it.edit.kept ? "cf-kept" : "cf-discarded"}`} data-kept={String(it.edit.kept)}>
                {trans.__("Edit")}: {it.edit.kept ? trans.__("kept") : trans.__("discarded")}
                {it.edit.lengthRatio !== undefined && ` (${trans.__("length ratio %1", it.edit.lengthRatio.toFixed(2))})`}
                {it.edit.before !== undefined && it.edit.after !== undefined && <WordDiff a={it.edit.before} b={it.edit.after} />}
              </li>
            )}
          </ul>
        </li>
      ))}
    </ol>
  );
}
