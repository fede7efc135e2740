/**
 * The self-feedback loop's trace as an iteration tree, and a word diff for its edits. Pure, and
 * free of runtime imports (tests load it from Node as it is).
 */
import type { SpanView } from "@citeflow/core/browser";

/** A span of a run's trace, as the kernel's `record` gives it. */
export type SpanLike = SpanView;

export interface FeedbackIteration {
  n: number;
  status: string;
  ms?: number;
  error?: string;
  feedback: { text: string; question?: string };
  retrieval?: { query: string; added: string[]; ms?: number };
  edit?: { kept: boolean; lengthRatio?: number; before?: string; after?: string; ms?: number };
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/** One iteration per `feedback N` span (loop.self-feedback): the item, its retrieval, its edit. */
export function feedbackIterations(spans: SpanLike[]): FeedbackIteration[] {
  const out: FeedbackIteration[] = [];
  for (const s of spans) {
    const m = /^feedback (\d+)$/.exec(s.name);
    if (!m) continue;
    const d = rec(s.data);
    const fb = rec(d.feedback);
    const it: FeedbackIteration = { n: Number(m[1]), status: s.status, feedback: { text: String(fb.text ?? ""), ...(typeof fb.question === "string" ? { question: fb.question } : {}) } };
    if (s.ms !== undefined) it.ms = s.ms;
    if (s.error) it.error = s.error.message;
    const r = s.children.find((c) => c.name === "retrieve");
    if (r) {
      const rd = rec(r.data);
      it.retrieval = { query: String(rd.query ?? ""), added: Array.isArray(rd.added) ? rd.added.map(String) : [], ...(r.ms !== undefined ? { ms: r.ms } : {}) };
    }
    if (typeof d.kept === "boolean") {
      const e = s.children.find((c) => c.name === "edit");
      it.edit = {
        kept: d.kept,
        ...(typeof d.lengthRatio === "number" ? { lengthRatio: d.lengthRatio } : {}),
        ...(typeof d.before === "string" ? { before: d.before } : {}),
        ...(typeof d.after === "string" ? { after: d.after } : {}),
        ...(e?.ms !== undefined ? { ms: e.ms } : {}),
      };
    }
    out.push(it);
  }
  return out.sort((a, b) => a.n - b.n);
}

export type DiffPart = { op: "same" | "del" | "ins"; text: string };

/** The share of words two texts have in common, in order: the diff's unchanged words over the longer text's words (1 for two empty texts). */
export function sharedWords(parts: DiffPart[]): number {
  const words = (op: DiffPart["op"]) => parts.filter((p) => p.op === op).reduce((n, p) => n + (p.text.match(/[^\s]+/g)?.length ?? 0), 0);
  const same = words("same");
  const longer = same + Math.max(words("del"), words("ins"));
  return longer === 0 ? 1 : same / longer;
}

/** Below this share of words in common, a word diff is a wall of colour: the texts are shown apart instead. */
export const DIFFABLE = 0.3;

/** Word-level diff (longest common subsequence over words and the spaces between them). */
export function wordDiff(a: string, b: string): DiffPart[] {
  const x = a.match(/\s+|[^\s]+/g) ?? [];
  const y = b.match(/\s+|[^\s]+/g) ?? [];
  const n = x.length;
  const m = y.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffPart[] = [];
  const push = (op: DiffPart["op"], text: string) => {
    const last = out[out.length - 1];
    if (last && last.op === op) last.text += text;
    else out.push({ op, text });
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      push("same", x[i++]!);
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) push("del", x[i++]!);
    else push("ins", y[j++]!);
  }
  while (i < n) push("del", x[i++]!);
  while (j < m) push("ins", y[j++]!);
  return out;
}
