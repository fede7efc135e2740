import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical.js";

/** Content hash of a JSON value: sha256 of its canonical JSON, hex. Node-only (used by the executor). */
export function hashValue(value: unknown): string {
  return hashText(canonicalJson(value));
}

export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
