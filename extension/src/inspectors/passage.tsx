/** One passage in full, below the passages table: every metadata field, every score, the whole text. */
import type { Passage } from "@citeflow/core/browser";
import { useEffect, useRef, type ReactNode } from "react";
import { trans } from "../i18n";
import { reveal } from "../reveal";

export interface PassageDetailProps {
  passage: Passage;
  rank: number;
  /** Marks the query's terms in a text. */
  mark: (text: string) => ReactNode;
  /** Texts in this view are cut to this many characters (a notebook output), if set. */
  preview?: number | undefined;
  /** Records a relevance correction for this passage (the editor, after a run). */
  onRelevance?: ((relevant: boolean) => void) | undefined;
  onClose: () => void;
}

function metaValue(key: string, v: unknown): ReactNode {
  if (key === "url" && typeof v === "string" && /^https?:\/\//i.test(v))
    return (
      <a href={v} target="_blank" rel="noopener noreferrer">
        {v}
      </a>
    );
  if (v === null || typeof v !== "object") return String(v);
  const json = JSON.stringify(v);
  return <span className="cf-mono">{json.length > 200 ? json.slice(0, 200) + "…" : json}</span>;
}

export function PassageDetail({ passage: p, rank, mark, preview, onRelevance, onClose }: PassageDetailProps) {
  const meta = Object.entries(p.metadata ?? {}).filter(([, v]) => v !== undefined);
  const scores = Object.entries(p.scores ?? {});
  // It opens below the table: brought into view, as it was asked for (a click or a citation).
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    reveal(ref.current);
  }, [p.id]);
  return (
    <section ref={ref} className="cf-passage-detail" data-passage={p.id} aria-label={trans.__("Passage %1", p.id)}>
      <header>
        <span className="cf-muted">#{rank}</span> <b>{mark(p.title)}</b> <span className="cf-mono">{p.id}</span>
        <button className="cf-mini cf-close" title={trans.__("Close")} aria-label={trans.__("Close")} onClick={onClose}>
          ×
        </button>
      </header>
      {(meta.length > 0 || scores.length > 0) && (
        <div className="cf-passage-meta">
          {meta.map(([k, v]) => (
            <span key={`m-${k}`} data-meta={k}>
              <span className="cf-muted">{k}</span> {metaValue(k, v)}
            </span>
          ))}
          {scores.map(([k, v]) => (
            <span key={`s-${k}`} data-score={k}>
              <span className="cf-muted">{k}</span> <span className="cf-num">{v.toFixed(4)}</span>
            </span>
          ))}
        </div>
      )}
      <p className="cf-passage-full">{mark(p.text)}</p>
      {onRelevance && (
        <p className="cf-relevance">
          {trans.__("Relevant to the question?")}{" "}
          <button className="cf-button" data-relevant="true" onClick={() => onRelevance(true)}>
            {trans.__("Relevant")}
          </button>{" "}
          <button className="cf-button" data-relevant="false" onClick={() => onRelevance(false)}>
            {trans.__("Not relevant")}
          </button>
        </p>
      )}
      {/* Cut for the display (previewText): at the last whole word within `preview` characters, ending with "…". */}
      {preview !== undefined && p.text.endsWith("…") && p.text.length > preview / 2 && (
        <p className="cf-muted cf-preview-note">
          {trans.__("This output carries at most the first %1 characters of each passage; the kernel's values and the run store keep the whole text.", String(preview))}
        </p>
      )}
    </section>
  );
}
