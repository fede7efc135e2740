import { existsSync, realpathSync } from "node:fs";
import { readRegularFile } from "@citeflow/runstore";
import { isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hashText, TEMPLATE_LIMITS } from "@citeflow/core";
import { z } from "zod";

const PROMPTS_DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));

/**
 * A prompt param holds either the template itself or `file:<name>`: a shipped, versioned prompt
 * (`file:core-gpt.answer.v1`, from packages/nodes/prompts/) or a file of your own
 * (`file:prompts/my-answer.txt`), relative to the graph's folder. A graph file is shared like a
 * notebook, so a file it names is read only from the prompt roots (the services' `graphDir`: the
 * graph file's folder for `citeflow run` and `validate`, else the working folder, which for the
 * editor's kernel is the graph's folder; then the folders in $CITEFLOW_PROMPTS), after resolving
 * symlinks: never `file:/etc/passwd` or `file:../../.ssh/id_rsa`.
 */
export function promptParam(defaultName: string, what: string) {
  return z.string().min(1).default(`file:${defaultName}`).describe(`${what}: a template, or file:<shipped name, or a path in the graph's folder or $CITEFLOW_PROMPTS>`);
}

const inside = (root: string, path: string) => {
  const r = relative(root, path);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
};

const SHIPPED = /^[a-z0-9-]+(\.[a-z0-9-]+)*\.v\d+$/;

/** Whether a prompt param names a prompt shipped with Citeflow (`file:core-gpt.answer.v1`). */
export const isShippedPrompt = (ref: string) => ref.startsWith("file:") && SHIPPED.test(ref.slice(5).trim());

/** Where a `file:` prompt is, or undefined for an inline template; throws for a file outside the prompt roots (the first resolves relative names). */
export function promptPath(ref: string, roots: string[]): string | undefined {
  if (!ref.startsWith("file:")) return undefined;
  const name = ref.slice(5).trim();
  if (SHIPPED.test(name)) return resolve(PROMPTS_DIR, `${name}.txt`);
  // Relative names resolve in the graph's folder; then the real path (symlinks followed) must be in a root.
  const path = resolve(roots[0]!, name);
  const real = existsSync(path) ? realpathSync(path) : path;
  const realRoots = roots.map((r) => (existsSync(r) ? realpathSync(r) : r));
  if (!realRoots.some((r) => inside(r, real)))
    throw new Error(
      `prompt ${ref}: ${real} is outside the folders prompts are read from (${roots.join(", ")}); a graph file cannot read other files. Put the prompt there, or add its folder to $CITEFLOW_PROMPTS`,
    );
  return path;
}

/** A prompt file's size at most: a template has at most 1,000,000 characters (TEMPLATE_LIMITS), 4 bytes each in UTF-8. */
const PROMPT_BYTES = 4 * TEMPLATE_LIMITS.sourceChars;

export function loadPrompt(ref: string, roots: string[]): string {
  const path = promptPath(ref, roots);
  if (!path) return ref;
  if (!existsSync(path)) throw new Error(`prompt ${ref}: no file at ${path}`);
  return readRegularFile(path, PROMPT_BYTES, "a prompt");
}

/** What a prompt param resolves to, for the cache key: edits to a prompt file re-run the node. */
export function promptFingerprint(ref: string, roots: string[]): string | null {
  const path = promptPath(ref, roots);
  return path && existsSync(path) ? hashText(readRegularFile(path, PROMPT_BYTES, "a prompt")) : null;
}
