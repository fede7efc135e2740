import { resolve } from "node:path";
import type { GraphNode, Reach, Services } from "@citeflow/core";
import { encoderServer } from "@citeflow/models";
import { qdrantSpecUrl } from "@citeflow/retrieval";
import { isShippedPrompt } from "./prompts.js";

export type { Reach };

/**
 * What a graph would reach, for `citeflow validate`, the editor's consent dialog and reviewers:
 * every `baseUrl` it sets, every Qdrant server a `store` names, every models folder (`modelsDir`) and every `file:` it names
 * (the prompts shipped with Citeflow excepted), judged by the services' configured servers, models folders and prompt folders.
 */
export function graphReach(nodes: Array<{ id: string; params?: GraphNode["params"] | undefined }>, services: Services): Reach[] {
  const out: Reach[] = [];
  for (const n of nodes)
    for (const [param, v] of Object.entries(n.params ?? {})) {
      if (typeof v !== "string" || v.trim() === "") continue;
      const server = param === "baseUrl" ? v : param === "store" ? qdrantSpecUrl(v) : param === "model" ? encoderServer(v) : undefined;
      if (param === "modelsDir") {
        const allowed = services.modelsDirAllowed(v);
        out.push({ node: n.id, param, kind: "models", target: resolve(v), allowed, ...(allowed ? {} : { why: "a models folder you have not configured or allowed" }) });
      } else if (server !== undefined) {
        const allowed = services.endpointAllowed(server);
        out.push({ node: n.id, param, kind: "endpoint", target: server, allowed, ...(allowed ? {} : { why: "a server you have not configured or allowed" }) });
      } else if (v.startsWith("file:") && !isShippedPrompt(v)) {
        try {
          out.push({ node: n.id, param, kind: "file", target: services.promptPath(v)!, allowed: true });
        } catch (e) {
          out.push({ node: n.id, param, kind: "file", target: v.slice(5).trim(), allowed: false, why: (e as Error).message });
        }
      }
    }
  return out;
}
