import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hashText } from "@citeflow/core";
import { z } from "zod";

const PROMPTS_DIR = fileURLToPath(new URL("../prompts/", import.meta.url));

/**
 * A prompt param holds either the template itself or `file:<name>`: a shipped, versioned prompt
 * (`file:core-gpt.answer.v1`, from packages/nodes/prompts/) or a path of your own
 * (`file:./prompts/my-answer.txt`, relative to the working directory).
 */
export function promptParam(defaultName: string, what: string) {
  return z.string().min(1).default(`file:${defaultName}`).describe(`${what}: a template, or file:<shipped name or path>`);
}

export function promptPath(ref: string): string | undefined {
  if (!ref.startsWith("file:")) return undefined;
  const name = ref.slice(5).trim();
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)*\.v\d+$/.test(name)) return resolve(PROMPTS_DIR, `${name}.txt`);
  return resolve(name);
}

export function loadPrompt(ref: string): string {
  const path = promptPath(ref);
  if (!path) return ref;
  if (!existsSync(path)) throw new Error(`prompt ${ref}: no file at ${path}`);
  return readFileSync(path, "utf8");
}

/** What a prompt param resolves to, for the cache key: edits to a prompt file re-run the node. */
export function promptFingerprint(ref: string): string | null {
  const path = promptPath(ref);
  return path && existsSync(path) ? hashText(readFileSync(path, "utf8")) : null;
}
