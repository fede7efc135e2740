import { createRegistry } from "@citeflow/nodes";
import { Redactor, secretsFromEnv } from "@citeflow/runstore";
import { main } from "./program.js";

// Nothing the CLI prints carries a secret: a server's 401 body echoing the key, a node error, a
// stored value. Every write to stdout and stderr goes through the run store's redaction.
const redactor = new Redactor(secretsFromEnv());
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === "string" ? redactor.redact(chunk) : chunk, ...rest)) as typeof stream.write;
}

// Output piped into `head` and closed early is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2), createRegistry());
