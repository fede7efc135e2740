import {
  Answer,
  CITEFLOW_MIME,
  Claim,
  Passage,
  PREVIEW_CHARS,
  previewPassage,
  Verdict,
  VIEW_VERSION,
  type AnswerView,
  type CiteflowView,
  type NodeState,
  type PassagesView,
  type RunNodeView,
  type RunView,
  type VerdictsView,
} from "@citeflow/core";
import type { MimeBundle } from "./display.js";
import { clip, fmtScore, html, htmlTable } from "./html.js";

// The view types live in core (types only), shared with the notebook renderer in the browser.
export { CITEFLOW_MIME, VIEW_VERSION, type AnswerView, type CiteflowView, type NodeState, type PassagesView, type RunNodeView, type RunView, type VerdictsView };

export const VERDICT_COLOURS = { SUPPORT: "#2e7d32", CONTRADICT: "#c62828", NO_EVIDENCE: "#ef6c00", NO_REFERENCE: "#757575", CANNOT_TELL: "#546e7a" } as const;
/** The text on each verdict colour: white reads at under 4.5:1 on the orange, so it is dark there. */
const VERDICT_INK = { SUPPORT: "#fff", CONTRADICT: "#fff", NO_EVIDENCE: "#212121", NO_REFERENCE: "#fff", CANNOT_TELL: "#fff" } as const;

export function isPassageList(v: unknown): v is Passage[] {
  return Array.isArray(v) && v.length > 0 && v.every((p) => Passage.safeParse(p).success);
}

export function isVerdictList(v: unknown): v is Verdict[] {
  return Array.isArray(v) && v.length > 0 && v.every((p) => Verdict.safeParse(p).success);
}

export function isAnswer(v: unknown): v is Answer {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Answer.safeParse(v).success;
}

/** A bundle for a Citeflow value, or undefined when the value is not one. */
export function bundleFor(value: unknown): MimeBundle | undefined {
  if (isPassageList(value)) return passagesBundle(value);
  if (isAnswer(value)) return answerBundle(value);
  if (isVerdictList(value)) return verdictsBundle(value);
  return undefined;
}

/**
 * The view as a display carries it: passage texts cut to what the inspectors show
 * (`previewText`), in the passages and answer kinds and in every passage list among a run's outputs.
 */
export function previewView<V extends CiteflowView>(view: V): V {
  const preview = PREVIEW_CHARS;
  // Already cut (a run's view cuts its outputs before weighing them against the size budget).
  if ("preview" in view && view.preview === preview) return view;
  switch (view.kind) {
    case "passages":
      return { ...view, passages: view.passages.map(previewPassage), preview };
    case "answer":
      return view.passages ? { ...view, passages: view.passages.map(previewPassage), preview } : view;
    case "run":
      return view.outputs ? { ...view, outputs: Object.fromEntries(Object.entries(view.outputs).map(([node, ports]) => [node, previewOutputs(ports)])), preview } : view;
    default:
      return view;
  }
}

/** A node's outputs (port → value) with every passage list's texts cut as a view shows them. */
export function previewOutputs(ports: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(ports).map(([port, v]) => [port, isPassageList(v) ? v.map(previewPassage) : v]));
}

/** The display bundle of a view: the view for Citeflow's renderer, and HTML and text tables for other front ends. */
export function viewBundle(full: CiteflowView): MimeBundle {
  const view = previewView(full);
  switch (view.kind) {
    case "run":
      return { [CITEFLOW_MIME]: view, "text/html": runHtml(view).text, "text/plain": runText(view) };
    case "passages":
      return { [CITEFLOW_MIME]: view, "text/html": passagesHtml(view.passages), "text/plain": passagesText(view.passages) };
    case "answer":
      return { [CITEFLOW_MIME]: view, "text/html": answerHtml(view.answer).text, "text/plain": answerText(view.answer) };
    case "verdicts":
      return { [CITEFLOW_MIME]: view, "text/html": verdictsHtml(view.claims, view.verdicts).text, "text/plain": verdictsText(view.claims, view.verdicts) };
  }
}

export function passagesBundle(passages: Passage[], query?: string): MimeBundle {
  return viewBundle({ version: VIEW_VERSION, kind: "passages", passages, ...(query !== undefined ? { query } : {}) });
}

export function answerBundle(answer: Answer, passages?: Passage[]): MimeBundle {
  return viewBundle({ version: VIEW_VERSION, kind: "answer", answer, ...(passages ? { passages } : {}) });
}

export function verdictsBundle(verdicts: Verdict[], claims: Claim[] = [], passages: Passage[] = []): MimeBundle {
  const cited = new Set(verdicts.map((v) => v.passageId));
  const shown = passages.filter((p) => cited.has(p.id));
  return viewBundle({ version: VIEW_VERSION, kind: "verdicts", claims, verdicts, ...(shown.length ? { passages: shown } : {}) });
}

function scoreNames(passages: Passage[]): string[] {
  const names = new Set<string>();
  for (const p of passages) for (const k of Object.keys(p.scores)) names.add(k);
  return [...names];
}

/**
 * Rows of the plain front ends' passage tables (`text/html`, `text/plain`): the first ones and a
 * line saying how many more, as pandas does, since JupyterLab parses every output's HTML again
 * (for its table of contents) whether or not it shows it.
 */
export const FALLBACK_ROWS = 50;

function more(passages: Passage[], rows: number): string {
  return passages.length > rows ? `… ${passages.length - rows} more passages (${passages.length} in all)` : "";
}

/** An HTML table of passages (rank, id, title and text cut short, every score): its first `rows` rows. */
export function passagesHtml(passages: Passage[], rows = FALLBACK_ROWS): string {
  const scores = scoreNames(passages);
  const cells = passages
    .slice(0, rows)
    .map((p, i) => [
      String(i + 1),
      html`<code>${p.id}</code>`,
      html`<b>${clip(p.title, 90)}</b><br />${clip(p.text, 240)}`,
      ...scores.map((s) => (typeof p.scores[s] === "number" ? fmtScore(p.scores[s]) : "")),
    ]);
  const rest = more(passages, rows);
  return html`${htmlTable(["#", "id", "passage", ...scores], cells)}${rest && html`<p><i>${rest}</i></p>`}`.text;
}

function passagesText(passages: Passage[]): string {
  const scores = scoreNames(passages);
  const lines = passages
    .slice(0, FALLBACK_ROWS)
    .map((p, i) => `[${i + 1}] ${p.id}  ${scores.map((s) => (p.scores[s] === undefined ? "" : `${s}=${fmtScore(p.scores[s]!)}`)).join(" ")}  ${clip(p.title, 80)}`);
  const rest = more(passages, FALLBACK_ROWS);
  return [`${passages.length} passages (scores: ${scores.join(", ") || "none"})`, ...lines, ...(rest ? [rest] : [])].join("\n");
}

function answerHtml(a: Answer) {
  // The text's citation markers ([n]) in bold, each titled with the passage it cites.
  const text = a.text.split(/(\[\d+\])/).map((t, i) => {
    if (i % 2 === 0) return t;
    const marker = t.slice(1, -1);
    const bad = a.invalidCitations.some((c) => c.marker === marker);
    return html`<span title="${a.citations[marker] ?? ""}" style="color:${bad ? VERDICT_COLOURS.CONTRADICT : "inherit"};font-weight:bold">${t}</span>`;
  });
  const cites = Object.entries(a.citations).map(([m, id], i) => html`${i ? " · " : ""}[${m}] <code>${id}</code>`);
  const bad =
    a.invalidCitations.length > 0 && html`<div style="color:${VERDICT_COLOURS.CONTRADICT}">citations outside the given passages: ${a.invalidCitations.map((c) => `[${c.marker}]`).join(" ")}</div>`;
  return html`<div>
    <p>${text}</p>
    <div><small>${cites}</small></div>
    ${bad}
  </div>`;
}

function answerText(a: Answer): string {
  const cites = Object.entries(a.citations)
    .map(([m, id]) => `[${m}] ${id}`)
    .join("  ");
  const bad = a.invalidCitations.length ? `\ncitations outside the given passages: ${a.invalidCitations.map((c) => `[${c.marker}]`).join(" ")}` : "";
  return `${a.text}\n${cites}${bad}`;
}

function claimText(claims: Claim[], id: string): string {
  return claims.find((c) => c.id === id)?.text ?? id;
}

function verdictsHtml(claims: Claim[], verdicts: Verdict[]) {
  const rows = verdicts.map((v) => [
    claimText(claims, v.claimId),
    html`<span style="color:${VERDICT_INK[v.label]};background:${VERDICT_COLOURS[v.label]};padding:1px 6px;border-radius:3px">${v.label}</span>`,
    v.passageId && html`<code>${v.passageId}</code>`,
    v.evidence && html`${clip(v.evidence.sentence, 200)}${v.evidence.page && html` <small>(p. ${v.evidence.page})</small>`}`,
  ]);
  return htmlTable(["claim", "verdict", "passage", "closest evidence"], rows);
}

function verdictsText(claims: Claim[], verdicts: Verdict[]): string {
  return verdicts.map((v) => `${String(v.label).padEnd(12)} ${v.passageId ?? "-"}  ${clip(claimText(claims, v.claimId), 100)}`).join("\n");
}

const BADGE: Record<NodeState, string> = { queued: "·", running: "…", paused: "‖", done: "✓", error: "✗", skipped: "-", aborted: "■" };

/** A time as displays show it; "" for what is not a number (a view read from a record someone changed). */
const ms = (x: unknown) => (typeof x === "number" ? `${x.toFixed(0)} ms` : "");

function nodeLine(n: RunNodeView): string {
  const detail = n.status === "error" ? (n.error ?? "error") : n.cache === "hit" ? "cached" : ms(n.ms) || n.status;
  return `${BADGE[n.status]} ${n.id} (${n.type}) ${detail}${n.models ? ` · ${n.models.join(", ")}` : ""}${n.warnings?.length ? ` · ⚠ ${n.warnings.join("; ")}` : ""}`;
}

function runText(v: RunView): string {
  const head = `run ${v.runId} · ${v.graph.name} · ${v.status}${ms(v.ms) && ` in ${ms(v.ms)}`}${v.question ? `\nquestion: ${v.question}` : ""}${v.error ? `\nerror: ${v.error}` : ""}`;
  return [head, ...v.nodes.map(nodeLine)].join("\n");
}

function runHtml(v: RunView) {
  const colour: Partial<Record<NodeState, string>> = { done: VERDICT_COLOURS.SUPPORT, error: VERDICT_COLOURS.CONTRADICT, running: "#1565c0", paused: VERDICT_COLOURS.NO_EVIDENCE };
  const rows = v.nodes.map((n) => [
    html`<span style="color:${colour[n.status] ?? VERDICT_COLOURS.NO_REFERENCE}">${BADGE[n.status]} ${n.status}</span>`,
    html`<code>${n.id}</code>`,
    n.type,
    n.cache === "hit" ? "cached" : ms(n.ms),
    n.models?.join(", "),
    [n.error, ...(n.warnings ?? []).map((w) => `⚠ ${w}`)].filter(Boolean).map((t, i) => html`${i ? html`<br />` : ""}${t}`),
  ]);
  const head = html`<div><b>${v.graph.name}</b> · run <code>${v.runId}</code> · ${v.status}${ms(v.ms) && ` in ${ms(v.ms)}`}${v.question && html`<br />question: ${v.question}`}</div>`;
  return html`${head}${htmlTable(["status", "node", "type", "time", "model", "error or warning"], rows)}`;
}
