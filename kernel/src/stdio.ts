type StreamName = "stdout" | "stderr";

/**
 * Cells' console output goes to the front end as `stream` messages. The kernel's own diagnostics
 * use the returned writers, which still reach the server's log.
 */
export function captureStdio(onText: (name: StreamName, text: string) => void): Record<StreamName, (s: string) => void> {
  const original = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };
  for (const name of ["stdout", "stderr"] as const) {
    const stream = process[name];
    stream.write = ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
      onText(name, text);
      const done = typeof encoding === "function" ? encoding : cb;
      if (typeof done === "function") queueMicrotask(() => (done as () => void)());
      return true;
    }) as typeof stream.write;
  }
  return { stdout: (s) => original.stdout(s), stderr: (s) => original.stderr(s) };
}
