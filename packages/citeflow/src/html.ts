import { shorten } from "@citeflow/core";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Markup made by `html`: the only thing that goes into HTML unescaped. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const part = (v: unknown): string => (v instanceof Html ? v.text : Array.isArray(v) ? v.map(part).join("") : v === undefined || v === null || v === false ? "" : esc(v));

/**
 * The one rule for the HTML Citeflow writes (notebook displays of runs, passages, answers and
 * verdicts, which come from run records anyone could have changed): every value put into the
 * template is escaped — text and attributes alike — except markup `html` made itself; a list is
 * its parts in order; undefined, null and false are nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(strings.reduce((out, s, i) => out + part(values[i - 1]) + s));
}

export function htmlTable(head: string[], rows: unknown[][]): Html {
  return html`<table>
    <thead>
      <tr>
        ${head.map((h) => html`<th style="text-align:left">${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            ${r.map((c) => html`<td style="text-align:left;vertical-align:top">${c}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function fmtScore(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(3);
}

export function clip(s: string, n: number): string {
  return shorten(s, n);
}
