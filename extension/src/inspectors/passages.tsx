/**
 * Passages: rank, title, id and every score as a sortable column; query terms marked; a histogram.
 * A click on a passage's text shows it whole below the table (PassageDetail).
 */
import { checkIcon, closeIcon } from "@jupyterlab/ui-components";
import { previewText, rankingScore, type Passage } from "@citeflow/core/browser";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { trans } from "../i18n";
import { PassageDetail } from "./passage";

export interface PassagesProps {
  passages: Passage[];
  query?: string;
  /** Passage to scroll to, mark and show whole (a clicked citation). */
  focus?: string;
  onRelevance?: (passageId: string, relevant: boolean) => void;
  /** Texts in this view are cut to this many characters (a notebook output), if set. */
  preview?: number | undefined;
}

const STOP = new Set(["the", "and", "for", "with", "that", "this", "are", "was", "were", "from", "into", "than", "what", "which", "does", "how"]);

function terms(query: string | undefined): RegExp | undefined {
  const words =
    (query ?? "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]{3,}/gu)
      ?.filter((w) => !STOP.has(w)) ?? [];
  if (!words.length) return undefined;
  return new RegExp(`\\b(${[...new Set(words)].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "giu");
}

export function highlight(text: string, re: RegExp | undefined): ReactNode {
  if (!re) return text;
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    out.push(text.slice(last, m.index), <mark key={m.index}>{m[0]}</mark>);
    last = m.index! + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

type SortKey = { key: string; desc: boolean };

/** Rows are a fixed height so only those in view (plus a margin) are in the DOM: 1,000 passages cost what 30 do. */
const ROW = 72;
const VIEW = 600;
const MARGIN = 8;

export function PassagesView({ passages, query, focus, onRelevance, preview }: PassagesProps) {
  const scoreKeys = useMemo(() => [...new Set(passages.flatMap((p) => Object.keys(p.scores ?? {})))], [passages]);
  // The score the list is ranked by comes right after the rank, in view without scrolling; the others after the id.
  const rankKey = rankingScore(scoreKeys);
  const otherKeys = scoreKeys.filter((k) => k !== rankKey);
  const scoreCell = (p: Passage, k: string) => (
    <td key={k} className="cf-num">
      {typeof p.scores?.[k] === "number" ? p.scores[k]!.toFixed(3) : ""}
    </td>
  );
  const [sort, setSort] = useState<SortKey>({ key: "rank", desc: false });
  const re = useMemo(() => terms(query), [query]);
  const rows = useMemo(() => {
    const ranked = passages.map((p, i) => ({ p, rank: i + 1 }));
    if (sort.key === "rank") return sort.desc ? ranked.reverse() : ranked;
    const val = (r: { p: Passage; rank: number }) => (sort.key === "title" ? r.p.title : sort.key === "id" ? r.p.id : (r.p.scores?.[sort.key] ?? Number.NEGATIVE_INFINITY));
    return ranked.sort((a, b) => {
      const x = val(a);
      const y = val(b);
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return sort.desc ? -c : c;
    });
  }, [passages, sort]);
  const histKey = scoreKeys.includes(sort.key) ? sort.key : scoreKeys[0];
  const header = (key: string, label: string) => (
    <th
      key={key}
      className="cf-sortable"
      data-sort={key}
      aria-sort={sort.key === key ? (sort.desc ? "descending" : "ascending") : "none"}
      onClick={() => setSort((s) => ({ key, desc: s.key === key ? !s.desc : key !== "rank" && key !== "title" && key !== "id" }))}
    >
      {label}
      {sort.key === key ? (sort.desc ? " ▼" : " ▲") : ""}
    </th>
  );
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [open, setOpen] = useState<string | undefined>(focus);
  // A focused passage (a clicked citation) is scrolled into the window first, and shown whole.
  useEffect(() => {
    const i = rows.findIndex((r) => r.p.id === focus);
    if (i >= 0 && scroller.current) {
      scroller.current.scrollTop = Math.max(0, i * ROW - ROW);
      setTop(scroller.current.scrollTop);
    }
  }, [focus, rows]);
  useEffect(() => {
    setOpen(focus);
  }, [focus]);
  const detail = open === undefined ? undefined : rows.find((r) => r.p.id === open);
  const toggle = (id: string) => setOpen((o) => (o === id ? undefined : id));
  const first = Math.max(0, Math.floor(top / ROW) - MARGIN);
  const last = Math.min(rows.length, Math.ceil((top + VIEW) / ROW) + MARGIN);
  const cols = 3 + scoreKeys.length + (onRelevance ? 1 : 0);
  return (
    <div className="cf-passages" data-count={passages.length}>
      {histKey && <Histogram values={passages.map((p) => p.scores?.[histKey]).filter((v): v is number => typeof v === "number")} label={histKey} />}
      <div className="cf-passages-scroll" ref={scroller} style={{ maxHeight: VIEW }} onScroll={(e) => setTop(e.currentTarget.scrollTop)}>
        <table className="cf-table">
          <thead>
            <tr>
              {header("rank", "#")}
              {rankKey !== undefined && header(rankKey, rankKey)}
              {header("title", trans.__("title"))}
              {header("id", "id")}
              {otherKeys.map((k) => header(k, k))}
              {onRelevance && <th>{trans.__("relevant?")}</th>}
            </tr>
          </thead>
          <tbody>
            {first > 0 && (
              <tr className="cf-spacer" aria-hidden="true" style={{ height: first * ROW }}>
                <td colSpan={cols} />
              </tr>
            )}
            {rows.slice(first, last).map(({ p, rank }) => (
              <tr key={p.id} data-passage={p.id} style={{ height: ROW }} className={p.id === focus ? "cf-focus" : p.id === open ? "cf-open" : undefined}>
                <td>{rank}</td>
                {rankKey !== undefined && scoreCell(p, rankKey)}
                {/* A click opens the passage; a drag that selects text in it does not. */}
                <td className="cf-passage-text" onClick={() => window.getSelection()?.isCollapsed !== false && toggle(p.id)}>
                  <div>
                    {/* Inline, so the text flows after the title (a <button> would take the cell's width). */}
                    <b
                      className="cf-passage-title"
                      role="button"
                      tabIndex={0}
                      aria-expanded={p.id === open}
                      title={trans.__("Show the whole passage")}
                      onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), toggle(p.id))}
                    >
                      {highlight(p.title, re)}
                    </b>{" "}
                    {highlight(previewText(p.text), re)}
                  </div>
                </td>
                <td className="cf-mono">{p.id}</td>
                {otherKeys.map((k) => scoreCell(p, k))}
                {onRelevance && (
                  <td className="cf-nowrap">
                    {/* JupyterLab's own icons: emoji render as empty boxes where no emoji font is installed. */}
                    <button className="cf-mini" data-relevant="true" title={trans.__("Mark relevant")} aria-label={trans.__("Mark relevant")} onClick={() => onRelevance(p.id, true)}>
                      <checkIcon.react tag="span" className="cf-icon" />
                    </button>
                    <button className="cf-mini" data-relevant="false" title={trans.__("Mark not relevant")} aria-label={trans.__("Mark not relevant")} onClick={() => onRelevance(p.id, false)}>
                      <closeIcon.react tag="span" className="cf-icon" />
                    </button>
                  </td>
                )}
              </tr>
            ))}
            {last < rows.length && (
              <tr className="cf-spacer" aria-hidden="true" style={{ height: (rows.length - last) * ROW }}>
                <td colSpan={cols} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {detail && (
        <PassageDetail
          passage={detail.p}
          rank={detail.rank}
          mark={(text) => highlight(text, re)}
          preview={preview}
          onRelevance={onRelevance && ((relevant) => onRelevance(detail.p.id, relevant))}
          onClose={() => setOpen(undefined)}
        />
      )}
    </div>
  );
}

/** A 20-bin histogram of one score, as SVG. */
export function Histogram({ values, label, bins = 20 }: { values: number[]; label: string; bins?: number }) {
  if (!values.length) return null;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[hi === lo ? 0 : Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins))]!++;
  const top = Math.max(...counts);
  const w = 240;
  const h = 48;
  return (
    <figure className="cf-histogram" aria-label={`${label} histogram`}>
      <svg width={w} height={h} role="img">
        {counts.map((c, i) => (
          <rect key={i} x={(i * w) / bins + 1} width={w / bins - 2} y={h - (c / top) * h} height={(c / top) * h}>
            <title>{`${c}`}</title>
          </rect>
        ))}
      </svg>
      <figcaption>
        {label}: {lo.toFixed(3)} … {hi.toFixed(3)} ({values.length})
      </figcaption>
    </figure>
  );
}
