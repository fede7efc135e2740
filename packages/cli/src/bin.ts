import { createRegistry } from "@citeflow/nodes";
import { main } from "./program.js";

process.exitCode = await main(process.argv.slice(2), createRegistry());
