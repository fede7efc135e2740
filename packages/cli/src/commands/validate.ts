import { formatProblem, type NodeRegistry, type Services } from "@citeflow/core";
import { graphReach } from "@citeflow/nodes";
import { validateGraphFile } from "../graphfile.js";

/**
 * citeflow validate: every problem with its node and field, then everything the graph would reach
 * outside the process (servers it names, models folders it loads from, files it reads), each said to be allowed or not, so a
 * reviewer of a shared graph file sees it before running it.
 */
export function validateCommand(path: string, registry: NodeRegistry, services: Services): number {
  const { graph, problems } = validateGraphFile(path, registry);
  for (const p of problems) process.stdout.write(`${path}: ${formatProblem(p)}\n`);
  const errors = problems.filter((p) => p.severity === "error").length;
  if (errors === 0) {
    process.stdout.write(`${path}: valid${problems.length ? ` (${problems.length} warning(s))` : ""}\n`);
    for (const r of graphReach(graph!.doc.nodes, services)) {
      const what = { endpoint: `sends requests to ${r.target}`, models: `loads models from ${r.target}`, file: `reads the file ${r.target}` }[r.kind];
      process.stdout.write(`${path}: node "${r.node}" params.${r.param} ${what}: ${r.allowed ? "allowed" : `refused when run (${r.why})`}\n`);
    }
  }
  return errors ? 1 : 0;
}
