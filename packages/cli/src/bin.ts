import { createRegistry } from "@citeflow/nodes";
import { main } from "./program.js";

// Output piped into `head` and closed early is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2), createRegistry());
