import { readFileSync } from "node:fs";
import { findGraph, templateNames, templatePath } from "@citeflow/nodes";
import { FailureError } from "../errors.js";
import { table } from "../table.js";

/**
 * A graph argument names a file (an existing file wins) or a shipped template (`findGraph`, the
 * rule notebooks use too): its path, and the folder its `file:` prompts are read from.
 */
export function graphOrTemplate(arg: string): { path: string; dir?: string } {
  try {
    return findGraph(arg);
  } catch (e) {
    throw new FailureError((e as Error).message);
  }
}

export function templatesCommand(json: boolean): number {
  const rows = templateNames().map((name) => {
    const doc = JSON.parse(readFileSync(templatePath(name), "utf8")) as { name: string; description?: string; nodes: Array<{ type: string }> };
    return { name, title: doc.name, description: doc.description ?? "", path: templatePath(name), nodes: doc.nodes.map((n) => n.type) };
  });
  if (json) process.stdout.write(JSON.stringify(rows) + "\n");
  else {
    process.stdout.write(
      table(
        ["template", "steps"],
        rows.map((r) => [r.name, r.nodes.join(" → ")]),
      ),
    );
    for (const r of rows) process.stdout.write(`\n${r.name} (${r.title}): ${r.description}\n  ${r.path}\n`);
    process.stdout.write(`\nRun one: citeflow run <template> --question "…" --store <dir>\n`);
  }
  return 0;
}
