import type { Catalogue, NodeRegistry } from "@citeflow/core";
import { installedModels } from "@citeflow/models";

/**
 * The catalogue as a front end shows it: each model param (marked `citeflowModelKind` by
 * `modelParam`) gets `examples`, the ids of the installed models of its kind (Citeflow's trained
 * ones included), so the editor's field offers them. `modelsDirs`: the folders models load from.
 */
export function catalogueWithModels(registry: NodeRegistry, modelsDirs: string[]): Catalogue {
  const models = installedModels(modelsDirs);
  const cat = registry.catalogue();
  for (const node of cat.nodes) {
    const props = (node.params as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
    for (const schema of Object.values(props)) {
      const kind = schema.citeflowModelKind;
      if (typeof kind === "string") schema.examples = models.filter((m) => m.kind === kind).map((m) => m.id);
    }
  }
  return cat;
}
