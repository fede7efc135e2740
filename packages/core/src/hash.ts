import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical.js";

/** Content hash of a JSON value: sha256 of its canonical JSON, hex. Node-only (used by the executor). */
export function hashValue(value: unknown): string {
  return hashText(canonicalJson(value));
}

export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A question typed in (CLI, notebook) gets an id derived from its text, so re-runs hit the cache. */
export function questionFromText(text: string): { id: string; text: string } {
  return { id: `q-${hashText(text).slice(0, 12)}`, text };
}
