import { z } from "zod";
import type { AnyNodeDefinition } from "./node.js";
import { VALUE_TYPES } from "./values.js";

/** A node type as plain JSON: its declaration minus the code, params as JSON Schema. */
export type CatalogueNode = Pick<AnyNodeDefinition, "type" | "version" | "title" | "family" | "description" | "inputs" | "outputs"> & {
  /** JSON Schema of the params (input side: fields with defaults are optional). */
  params: Record<string, unknown>;
  readsGraphInput: boolean;
};

export interface Catalogue {
  citeflowCatalogue: 1;
  valueTypes: Record<string, Record<string, unknown>>;
  nodes: CatalogueNode[];
}

/** The node types a host knows. Graph loading and execution resolve types here, never by import. */
export class NodeRegistry {
  readonly #defs = new Map<string, AnyNodeDefinition>();

  constructor(defs: Iterable<AnyNodeDefinition> = []) {
    for (const d of defs) this.register(d);
  }

  register(def: AnyNodeDefinition): this {
    if (this.#defs.has(def.type)) throw new Error(`node type "${def.type}" is registered twice`);
    this.#defs.set(def.type, def);
    return this;
  }

  get(type: string): AnyNodeDefinition | undefined {
    // Map lookup by own key: "__proto__" or "constructor" cannot reach Object.prototype.
    return this.#defs.get(type);
  }

  has(type: string): boolean {
    return this.#defs.has(type);
  }

  list(): AnyNodeDefinition[] {
    return [...this.#defs.values()].sort((a, b) => a.family.localeCompare(b.family) || a.type.localeCompare(b.type));
  }

  /** The catalogue as plain JSON, for the browser and `citeflow catalogue --json`. */
  catalogue(): Catalogue {
    const valueTypes: Catalogue["valueTypes"] = {};
    for (const [name, schema] of Object.entries(VALUE_TYPES)) valueTypes[name] = toJsonSchema(schema);
    return {
      citeflowCatalogue: 1,
      valueTypes,
      nodes: this.list().map((d) => ({
        type: d.type,
        version: d.version,
        title: d.title,
        family: d.family,
        description: d.description,
        inputs: d.inputs,
        outputs: d.outputs,
        params: toJsonSchema(d.params),
        readsGraphInput: d.graphInput !== undefined,
      })),
    };
  }
}

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}
