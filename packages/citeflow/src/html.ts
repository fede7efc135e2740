import { shorten } from "@citeflow/core";
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

export function htmlTable(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th style="text-align:left">${esc(h)}</th>`).join("");
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td style="text-align:left;vertical-align:top">${c}</td>`).join("")}</tr>`).join("");
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`;
}

export function fmtScore(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(3);
}

export function clip(s: string, n: number): string {
  return shorten(s, n);
}
