import { terminalText } from "@citeflow/core";

/**
 * What the CLI writes to stdout and stderr: every string is redacted, then made terminal-safe
 * (`terminalText`). The CLI's own control sequences (clearing a progress line, colouring a
 * verdict) are the only ones that reach the terminal, through `control`.
 */
const raw = new WeakMap<NodeJS.WritableStream, (chunk: string) => boolean>();

export function guardStreams(redact: (text: string) => string, streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    raw.set(stream, (chunk) => write(chunk));
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === "string" ? terminalText(redact(chunk)) : chunk, ...rest)) as typeof stream.write;
  }
}

/** The CLI's own terminal control sequences; nothing from data goes through here. */
export const CONTROL = {
  clearLine: "\r\x1b[2K",
  returnToStart: "\r",
  green: "\x1b[32m",
  red: "\x1b[31m",
  yellow: "\x1b[33m",
  grey: "\x1b[90m",
  reset: "\x1b[0m",
} as const;

export function control(stream: NodeJS.WritableStream, seq: (typeof CONTROL)[keyof typeof CONTROL]): void {
  (raw.get(stream) ?? ((c: string) => stream.write(c)))(seq);
}

/** A progress line that replaces the one before it. */
export function clearedLine(text: string, stream: NodeJS.WritableStream = process.stderr): void {
  control(stream, CONTROL.clearLine);
  stream.write(text);
}
