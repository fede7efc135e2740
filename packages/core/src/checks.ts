/** Values checked against the ports they enter and leave by. */
import type { z } from "zod";
import type { CompiledGraph, CompiledNode } from "./graph.js";
import { schemaFor } from "./ports.js";
import { NodeOutputError } from "./run-types.js";

/** Values that arrived through `Any` or an unbound variable are checked against the port they enter. */
export function checkInputs(graph: CompiledGraph, node: CompiledNode, inputs: Record<string, unknown>): void {
  for (const [port, spec] of Object.entries(node.def.inputs)) {
    const value = inputs[port];
    if (value === undefined) continue;
    const schema = schemaFor(node.inputTypes[port]!);
    if (!schema) continue;
    const refs = node.incoming[port] ?? [];
    const values = spec.many ? (value as unknown[]) : [value];
    values.forEach((v, i) => {
      const src = refs[i]!;
      const srcType = graph.nodes.get(src.node)!.outputTypes[src.port];
      if (srcType === node.inputTypes[port]) return;
      const r = schema.safeParse(v);
      if (!r.success) throw new NodeOutputError(`input "${port}" of node "${node.id}" (from ${src.node}.${src.port}) is not ${node.inputTypes[port]}: ${describeIssues(r.error)}`);
    });
  }
}

/** A node's returned object, checked against its output ports: every port present, none extra, each of its type. */
export function checkOutputs(node: CompiledNode, produced: unknown): Record<string, unknown> {
  const where = `node "${node.id}" (${node.def.type})`;
  if (typeof produced !== "object" || produced === null || Array.isArray(produced))
    throw new NodeOutputError(`${where} returned ${Array.isArray(produced) ? "an array" : String(produced)}, not an object of output ports`);
  const out = produced as Record<string, unknown>;
  for (const key of Object.keys(out))
    if (!Object.hasOwn(node.def.outputs, key)) throw new NodeOutputError(`${where} returned "${key}", which is not one of its outputs (${Object.keys(node.def.outputs).join(", ")})`);
  const checked: Record<string, unknown> = {};
  for (const port of Object.keys(node.def.outputs)) {
    if (out[port] === undefined) throw new NodeOutputError(`${where} returned no value for output "${port}"`);
    const schema = schemaFor(node.outputTypes[port]!);
    if (!schema) {
      checked[port] = out[port];
      continue;
    }
    const r = schema.safeParse(out[port]);
    if (!r.success) throw new NodeOutputError(`${where} output "${port}" is not ${node.outputTypes[port]}: ${describeIssues(r.error)}`);
    checked[port] = r.data;
  }
  return checked;
}

export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`);
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : "";
  return shown.join("; ") + more;
}
