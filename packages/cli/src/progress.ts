import type { RunEvent } from "@citeflow/core";
import { control, CONTROL } from "./terminal.js";

/**
 * Turns run events into terminal output on stderr: on a TTY a live bar plus one line per finished
 * node; elsewhere just the lines.
 */
export class ProgressPrinter {
  #done = 0;
  #total = 0;
  #running = new Set<string>();
  #label = "";
  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly tty = Boolean(process.stderr.isTTY),
  ) {}

  /** A prefix for lines of this run (the question id in a batch). */
  setLabel(label: string) {
    this.#label = label ? `[${label}] ` : "";
  }

  on(e: RunEvent): void {
    switch (e.type) {
      case "run-start":
        this.#done = 0;
        this.#total = e.selected.length;
        this.#running.clear();
        break;
      case "node-start":
        this.#running.add(e.nodeId);
        break;
      case "node-paused":
        this.#line(`⏸ ${e.nodeId} (${e.reason})`);
        break;
      case "node-end":
        this.#running.delete(e.nodeId);
        this.#done++;
        this.#line(
          `✓ ${e.nodeId.padEnd(20)} ${e.cache === "hit" ? "cached" : "ran   "} ${fmtMs(e.ms)}${e.overridden ? ` (overridden: ${e.overridden.join(", ")})` : ""}${e.models ? ` · ${e.models.join(", ")}` : ""}`,
        );
        for (const w of e.warnings ?? []) this.#line(`  ⚠ ${e.nodeId}: ${w}`);
        break;
      case "node-error":
        this.#running.delete(e.nodeId);
        this.#done++;
        this.#line(`✗ ${e.nodeId.padEnd(20)} ${e.error.name}: ${e.error.message}`);
        break;
      case "node-skipped":
        this.#done++;
        this.#line(`- ${e.nodeId.padEnd(20)} skipped (${e.reason === "upstream-failed" ? `${e.upstream} failed` : "aborted"})`);
        break;
      case "node-progress":
        break;
      case "run-end":
        this.#clear();
        return;
      default:
        return;
    }
    this.#bar();
  }

  #line(text: string) {
    this.#clear();
    this.out.write(`${this.#label}${text}\n`);
  }

  #clear() {
    if (this.tty) control(this.out, CONTROL.clearLine);
  }

  #bar() {
    if (!this.tty || this.#total === 0) return;
    const width = 24;
    const filled = Math.round((this.#done / this.#total) * width);
    const running = [...this.#running].join(", ");
    control(this.out, CONTROL.clearLine);
    this.out.write(`${this.#label}[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${this.#done}/${this.#total}${running ? ` · ${running}` : ""}`);
  }
}

/**
 * One line for a question set run several at a time (on a TTY): what the host's QuestionSet counts (questions done
 * of all, in flight, failed, questions a minute, the time left at that pace), redrawn as runs start and end. Lines
 * written through it go above.
 */
export class SetProgress {
  #text = "";
  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly tty = Boolean(process.stderr.isTTY),
  ) {}

  /** The set's line now (its tally in words: core's SetTally.text). */
  show(text: string): void {
    this.#text = text;
    this.#draw();
  }

  line(text: string): void {
    this.end();
    this.out.write(`${text}\n`);
    this.#draw();
  }

  /** Clears the set's line (a TTY only). */
  end(): void {
    if (this.tty) control(this.out, CONTROL.clearLine);
  }

  #draw(): void {
    if (!this.tty || !this.#text) return;
    this.end();
    this.out.write(this.#text);
  }
}

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined) return "";
  return ms < 10 ? `${ms.toFixed(2)} ms` : ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
