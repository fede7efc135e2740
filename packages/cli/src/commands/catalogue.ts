import type { NodeRegistry } from "@citeflow/core";
import { modelsDirsFromEnv } from "@citeflow/models";
import { catalogueWithModels } from "@citeflow/nodes";

export function catalogueCommand(registry: NodeRegistry, json: boolean): number {
  const cat = catalogueWithModels(registry, modelsDirsFromEnv(process.env));
  if (json) {
    process.stdout.write(JSON.stringify(cat, null, 2) + "\n");
    return 0;
  }
  let family = "";
  for (const n of cat.nodes) {
    if (n.family !== family) {
      family = n.family;
      process.stdout.write(`\n${family}\n`);
    }
    process.stdout.write(`  ${n.type} v${n.version} — ${n.title}: ${n.description}\n`);
    const ports = (side: string, ports: typeof n.inputs) =>
      Object.entries(ports).forEach(([name, p]) =>
        process.stdout.write(`      ${side} ${name}: ${p.type}${p.many ? " (many)" : ""}${p.optional ? " (optional)" : ""}${p.description ? ` — ${p.description}` : ""}\n`),
      );
    ports("in ", n.inputs);
    ports("out", n.outputs);
    const props = (n.params.properties ?? {}) as Record<string, { description?: string; default?: unknown; type?: unknown; enum?: unknown[] }>;
    for (const [name, p] of Object.entries(props)) {
      const type = p.enum ? p.enum.map((x) => JSON.stringify(x)).join("|") : typeof p.type === "string" ? p.type : "";
      const dflt = p.default !== undefined ? ` = ${JSON.stringify(p.default)}` : "";
      process.stdout.write(`      param ${name}${type ? `: ${type}` : ""}${dflt}${p.description ? ` — ${p.description}` : ""}\n`);
    }
  }
  return 0;
}
