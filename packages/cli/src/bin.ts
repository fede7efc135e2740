import { createRegistry } from "@citeflow/nodes";
import { Redactor, secretsFromEnv } from "@citeflow/runstore";
import { main } from "./program.js";
import { guardStreams } from "./terminal.js";

// Nothing the CLI prints carries a secret (a server's 401 body echoing the key, a node error, a
// stored value) or a control sequence from data (a corpus title that clears the screen).
const redactor = new Redactor(secretsFromEnv());
guardStreams((text) => redactor.redact(text));

// A file-size limit (ulimit -f) makes a write fail with EFBIG, reported like a full disk, instead of killing the process.
process.on("SIGXFSZ", () => undefined);

// Output piped into `head` and closed early is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2), createRegistry());
