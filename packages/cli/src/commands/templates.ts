import { readFileSync } from "node:fs";
import { templateNames, templatePath } from "@citeflow/nodes";
import { table } from "../table.js";

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
