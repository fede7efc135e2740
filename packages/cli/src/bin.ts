import { setFlagsFromString } from "node:v8";
import { processAddressSpaceWarning } from "./limits.js";

// Said before anything else loads: under a low address-space limit the imports below can already fail natively.
const warning = processAddressSpaceWarning();
if (warning) process.stderr.write(warning + "\n");

const { createRegistry } = await import("@citeflow/nodes");
const { Redactor, secretsFromEnv } = await import("@citeflow/runstore");
const { main } = await import("./program.js");
const { guardStreams } = await import("./terminal.js");

// Nothing the CLI prints carries a secret (a server's 401 body echoing the key, a node error, a
// stored value) or a control sequence from data (a corpus title that clears the screen).
const redactor = new Redactor(secretsFromEnv());
guardStreams((text) => redactor.redact(text));

// V8 grows its heap to 1.25 times what is live after each full collection, not its default of up to 4 times: a
// question set's memory then stays where it is once the set is under way (Verif.ai over 1,000 questions at 32 in flight,
// bench/served.mjs' setting: resident 554 → 603 MiB from the first tenth to the last, against 575 → 810 MiB), for about
// a tenth more CPU in collections. A soft rule, unlike a heap limit: a run that needs more memory still gets it.
setFlagsFromString("--heap-growing-percent=25");

// A file-size limit (ulimit -f) makes a write fail with EFBIG, reported like a full disk, instead of killing the process.
process.on("SIGXFSZ", () => undefined);

// Output piped into `head` and closed early is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2), createRegistry());
