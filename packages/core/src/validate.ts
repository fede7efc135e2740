import { z } from "zod";
import { GraphValidationError, type CompiledGraph, type CompiledNode, type GraphDoc, type Problem } from "./graph.js";
import { canConnect } from "./ports.js";
import { Problems, readShape, toGraphNode, wire, type LoadOptions } from "./graph-check.js";
import type { NodeRegistry } from "./registry.js";

export { NODE_ID, type LoadOptions } from "./graph-check.js";

/** Parse, validate against the registry and compile. Throws GraphValidationError listing every problem. */
export function loadGraph(input: string | unknown, registry: NodeRegistry, options: LoadOptions = {}): CompiledGraph {
  const { graph, problems } = validateGraph(input, registry, options);
  if (!graph) throw new GraphValidationError(problems, options.source);
  return graph;
}

/**
 * Like loadGraph, but returns the problems instead of throwing. `graph` is set when there are no
 * errors. The document's shape and wiring are graph-check.ts's rules (the editor's too); what needs
 * the registry is here: node types and versions, params against each node's schema, graph inputs.
 */
export function validateGraph(input: string | unknown, registry: NodeRegistry, options: LoadOptions = {}): { graph?: CompiledGraph; problems: Problem[] } {
  const p = new Problems();
  const done = () => ({ problems: p.list });
  const shape = readShape(input, options, p);
  if (!shape) return done();

  const compiled: Array<Pick<CompiledNode, "id" | "def" | "params" | "graphInput"> & { doc: GraphDoc["nodes"][number] }> = [];
  for (const n of shape.nodes) {
    const { path, id } = n;
    const def = registry.get(n.type);
    if (!def) {
      p.error(`${path}.type`, `unknown node type "${n.type}"`, id, "type");
      continue;
    }
    const version = n.version ?? def.version;
    if (version > def.version) {
      p.error(`${path}.version`, `saved with ${n.type} v${version}, but this Citeflow has v${def.version}: upgrade Citeflow`, id, "version");
      continue;
    }
    if (version < def.version) p.warn(`${path}.version`, `saved with ${n.type} v${version}; now v${def.version}: its results will be recomputed`, id, "version");

    const parsed = z.strictObject(def.params.shape).safeParse(n.params);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.code === "unrecognized_keys")
          for (const k of issue.keys)
            p.error(
              `${path}.params.${k}`,
              k === "apiKeyEnv"
                ? `"apiKeyEnv" is not a param any more: a graph file cannot choose which secret is sent; keys come from your environment ($OPENAI_API_KEY for $OPENAI_BASE_URL)`
                : `unknown param "${k}" for ${def.type}`,
              id,
              `params.${k}`,
            );
        else {
          const field = ["params", ...issue.path.map(String)].join(".");
          p.error(`${path}.${field}`, issue.message, id, field);
        }
      }
      continue;
    }
    // The strict shape check names unknown keys; the node's own schema adds its cross-field rules.
    const refined = def.params.safeParse(n.params);
    if (!refined.success) {
      for (const issue of refined.error.issues) {
        const field = ["params", ...issue.path.map(String)].join(".");
        p.error(`${path}.${field}`, issue.message, id, field);
      }
      continue;
    }
    const params = refined.data as Record<string, unknown>;

    let graphInput: string | undefined;
    if (def.graphInput) {
      graphInput = def.graphInput(params);
      const spec = Object.hasOwn(shape.inputs, graphInput) ? shape.inputs[graphInput] : undefined;
      const out = Object.values(def.outputs)[0]?.type ?? "Any";
      if (!spec) p.error(`${path}.params`, `reads graph input "${graphInput}", which the graph's "inputs" does not declare`, id, "params");
      else if (!canConnect(spec.type, out).ok) p.error(`${path}.params`, `graph input "${graphInput}" is ${spec.type}, but ${def.type} gives ${out}`, id, "params");
    }
    compiled.push({ id, def, params, ...(graphInput !== undefined ? { graphInput } : {}), doc: toGraphNode(n, version) });
  }

  const wired = wire(
    compiled.map(({ id, def }) => ({ id, type: def.type, inputs: def.inputs, outputs: def.outputs })),
    shape.rawEdges,
    shape.declaredIds,
    p,
  );
  if (!wired || p.hasErrors) return done();
  const nodes = new Map<string, CompiledNode>(
    compiled.map(({ doc: _doc, ...node }) => [
      node.id,
      {
        ...node,
        incoming: wired.incoming.get(node.id)!,
        children: wired.children.get(node.id)!,
        parents: wired.parents.get(node.id)!,
        inputTypes: wired.inputTypes.get(node.id)!,
        outputTypes: wired.outputTypes.get(node.id)!,
      },
    ]),
  );
  const doc: GraphDoc = {
    citeflow: 1,
    name: shape.raw.name as string,
    ...(typeof shape.raw.description === "string" ? { description: shape.raw.description } : {}),
    inputs: shape.inputs,
    nodes: compiled.map((c) => c.doc),
    edges: wired.edges.map((e) => e.edge),
  };
  return { graph: { doc, nodes, order: wired.order, warnings: p.list.filter((x) => x.severity === "warning") }, problems: p.list };
}
