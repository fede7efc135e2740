import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { format } from "node:util";
import { createConverter, createExecutor, isCompleteCode, printQuickInfo } from "./tslab.js";

export type Outcome = { status: "ok"; value?: unknown; hasValue: boolean } | { status: "error"; ename: string; evalue: string; traceback: string[] };

export interface Completion {
  start: number;
  end: number;
  matches: string[];
}

const INTERRUPTED = new Set(["Interrupted asynchronously", "Script execution was interrupted by `SIGINT`"]);

/**
 * TypeScript cells on tslab's executor: declarations persist across cells, top-level await works.
 * Types and packages resolve from `root` (the kernel's own install, where `citeflow` and
 * `@types/node` live), whatever folder the notebook sits in; the process's working directory stays
 * the notebook's, so relative file paths in cells mean what the user expects.
 */
export class Runtime {
  readonly #executor: ReturnType<typeof createExecutor>;
  #last: { value: unknown } | undefined;
  #errors: unknown[][] = [];

  constructor(readonly root: string) {
    const notebookDir = process.cwd();
    process.chdir(root);
    try {
      const node = createConverter();
      const browser = createConverter({ isBrowser: true });
      this.#executor = createExecutor(
        root,
        { node, browser, close: () => (node.close(), browser.close()) },
        {
          log: (value: unknown) => (this.#last = { value }),
          error: (...args: unknown[]) => this.#errors.push(args),
        },
      );
    } finally {
      process.chdir(notebookDir);
    }
  }

  async execute(code: string): Promise<Outcome> {
    this.#last = undefined;
    this.#errors = [];
    let ok: boolean;
    try {
      ok = await this.#executor.execute(code);
    } catch (e) {
      ok = false;
      this.#errors.push([e]);
    }
    const last = this.#last as { value: unknown } | undefined;
    if (ok) return last ? { status: "ok", value: last.value, hasValue: true } : { status: "ok", hasValue: false };
    return describeFailure(this.#errors);
  }

  complete(code: string, cursor: number): Completion {
    const info = this.#executor.complete(code, cursor);
    return { start: info.start, end: info.end, matches: info.candidates };
  }

  inspect(code: string, cursor: number): string | undefined {
    const info = this.#executor.inspect(code, cursor);
    return info ? printQuickInfo(info) : undefined;
  }

  isComplete(code: string): { status: "complete" | "incomplete"; indent?: string } {
    const r = isCompleteCode(code);
    return r.completed ? { status: "complete" } : { status: "incomplete", indent: r.indent ?? "" };
  }

  interrupt(): void {
    this.#executor.interrupt();
  }

  close(): void {
    this.#executor.close();
  }
}

/** tslab reports compile diagnostics as format-string calls and runtime failures as one thrown value. */
function describeFailure(calls: unknown[][]): Outcome & { status: "error" } {
  const diagnostics = calls.filter((c) => typeof c[0] === "string" && c.length > 1);
  if (diagnostics.length > 0) {
    const lines = diagnostics.map((c) => format(...(c as [string, ...unknown[]])));
    return { status: "error", ename: "TypeScriptError", evalue: lines.join("; "), traceback: lines };
  }
  const thrown = calls.find((c) => c.length === 1)?.[0] ?? calls[0]?.[0];
  if (thrown instanceof Error) {
    if (INTERRUPTED.has(thrown.message)) return { status: "error", ename: "Interrupted", evalue: "execution was interrupted", traceback: ["Interrupted: execution was interrupted"] };
    const stack = (thrown.stack ?? `${thrown.name}: ${thrown.message}`).split("\n").filter((l) => !/node:vm|tslab[\\/]dist|citeflow[\\/]kernel[\\/]dist|node:internal/.test(l));
    return { status: "error", ename: thrown.name, evalue: thrown.message, traceback: stack };
  }
  const text = thrown === undefined ? "the cell failed" : typeof thrown === "string" ? thrown : format("%o", thrown);
  return { status: "error", ename: "Error", evalue: text, traceback: [`Uncaught ${text}`] };
}

/** The kernel package's folder: from there `citeflow`, the Citeflow packages and `@types/node` resolve. */
export function defaultRoot(): string {
  return dirname(dirname(fileURLToPath(import.meta.url)));
}
