import type { GraphNode, Reach } from "@citeflow/core";
import { endpointAllowed } from "./endpoints.js";
import { isShippedPrompt, promptPath } from "./prompts.js";

export type { Reach };

/**
 * What a graph would reach, for `citeflow validate`, the editor's consent dialog and reviewers:
 * every `baseUrl` it sets and every `file:` it names (the prompts shipped with Citeflow excepted).
 */
export function graphReach(nodes: Array<{ id: string; params?: GraphNode["params"] | undefined }>): Reach[] {
  const out: Reach[] = [];
  for (const n of nodes)
    for (const [param, v] of Object.entries(n.params ?? {})) {
      if (typeof v !== "string" || v.trim() === "") continue;
      if (param === "baseUrl") {
        const allowed = endpointAllowed(v);
        out.push({ node: n.id, param, kind: "endpoint", target: v, allowed, ...(allowed ? {} : { why: "a server you have not configured or allowed" }) });
      } else if (v.startsWith("file:") && !isShippedPrompt(v)) {
        try {
          out.push({ node: n.id, param, kind: "file", target: promptPath(v)!, allowed: true });
        } catch (e) {
          out.push({ node: n.id, param, kind: "file", target: v.slice(5).trim(), allowed: false, why: (e as Error).message });
        }
      }
    }
  return out;
}
