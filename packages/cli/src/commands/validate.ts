import { formatProblem, type NodeRegistry } from "@citeflow/core";
import { validateGraphFile } from "../graphfile.js";

export function validateCommand(path: string, registry: NodeRegistry): number {
  const problems = validateGraphFile(path, registry);
  for (const p of problems) process.stdout.write(`${path}: ${formatProblem(p)}\n`);
  const errors = problems.filter((p) => p.severity === "error").length;
  if (errors === 0) process.stdout.write(`${path}: valid${problems.length ? ` (${problems.length} warning(s))` : ""}\n`);
  return errors ? 1 : 0;
}
