import { describeIssues } from "./checks.js";
import { ancestors, descendants, type CompiledGraph } from "./graph.js";
import { schemaFor } from "./ports.js";
import { RunRequestError, type RunOptions } from "./run-types.js";

/** A partial run's request in words, as every front end shows it (the CLI's --to, the editor's "Run to here"). */
const WORDS = { to: "run to", from: "run from", only: "run only" } as const;

/**
 * Which nodes a run runs (`to`, `from`, `only` and what they need, in graph order) and which of
 * them ignore the cache (`from`, `only`, `force`).
 */
export function selectNodes(g: CompiledGraph, o: RunOptions): { selected: string[]; forced: Set<string> } {
  for (const [key, id] of [
    ["to", o.to],
    ["from", o.from],
    ["only", o.only],
  ] as const)
    if (id !== undefined && !g.nodes.has(id)) throw new RunRequestError(`${WORDS[key]} "${id}": no node "${id}" in graph "${g.doc.name}"`);
  let target = new Set(g.order);
  const forced = new Set<string>();
  if (o.to !== undefined) target = new Set([o.to, ...ancestors(g, o.to)]);
  if (o.from !== undefined) {
    const downstream = new Set([o.from, ...descendants(g, o.from)]);
    target = new Set([...target].filter((id) => downstream.has(id)));
    if (target.size === 0) throw new RunRequestError(`run from "${o.from}" to "${o.to}": "${o.to}" is not downstream of "${o.from}"`);
    for (const id of target) forced.add(id);
  }
  if (o.only !== undefined) {
    target = new Set([o.only]);
    forced.add(o.only);
  }
  const needed = new Set(target);
  for (const id of target) for (const a of ancestors(g, id)) needed.add(a);
  if (o.force) for (const id of needed) forced.add(id);
  return { selected: g.order.filter((id) => needed.has(id)), forced };
}

/** The graph inputs the selected nodes read are given and of their types; overrides name real output ports and fit their types. */
export function checkRunRequest(g: CompiledGraph, selected: string[], o: RunOptions): void {
  const inputs = o.inputs ?? {};
  for (const id of selected) {
    const name = g.nodes.get(id)!.graphInput;
    if (name === undefined) continue;
    if (!Object.hasOwn(inputs, name)) throw new RunRequestError(`graph input "${name}" (read by node "${id}") was not given`);
    const schema = schemaFor(g.doc.inputs[name]!.type);
    const r = schema?.safeParse(inputs[name]);
    if (r && !r.success) throw new RunRequestError(`graph input "${name}" is not ${g.doc.inputs[name]!.type}: ${describeIssues(r.error)}`);
  }
  for (const [id, ports] of Object.entries(o.overrides ?? {})) {
    const node = g.nodes.get(id);
    if (!node) throw new RunRequestError(`override for unknown node "${id}"`);
    for (const [port, value] of Object.entries(ports)) {
      if (!Object.hasOwn(node.outputTypes, port)) throw new RunRequestError(`override ${id}.${port}: ${node.def.type} has no output "${port}"`);
      const r = schemaFor(node.outputTypes[port]!)?.safeParse(value);
      if (r && !r.success) throw new RunRequestError(`override ${id}.${port} is not ${node.outputTypes[port]}: ${describeIssues(r.error)}`);
    }
  }
}
