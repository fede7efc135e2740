/**
 * Reading a `*.citeflow.json` file into the editor, by core's graph rules (`checkGraph`, the same
 * the kernel loads graphs by): its shape and wiring; node types, ports and params are checked
 * against the kernel's catalogue when it connects, and when it runs. A file that does not read is
 * never drawn or written over.
 */
import { checkGraph, type GraphDoc } from "@citeflow/core/browser";

/** At most this many problems are listed; the rest are counted. */
const SHOWN = 8;

/**
 * Parses and checks a graph file. Throws an Error whose message starts with the path and lists
 * every problem with its place in the document (`nodes[2].id`, `edges[0].to`).
 */
export function parseGraph(text: string, path: string): GraphDoc {
  const { doc, problems } = checkGraph(text);
  if (doc) return doc;
  const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.path || "document"}: ${p.message}`);
  const more = errors.length > SHOWN ? `\n… and ${errors.length - SHOWN} more` : "";
  throw new Error(`${path}: ${errors.length === 1 ? "1 problem" : `${errors.length} problems`}\n${errors.slice(0, SHOWN).join("\n")}${more}`);
}
