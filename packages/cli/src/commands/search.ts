import type { NodeRegistry } from "@citeflow/core";
import { questionFromText } from "../questions.js";
import { retrievalGraph, retrieve } from "../retrieval-graph.js";
import { preview, table } from "../table.js";
import { cliSession } from "../services.js";

export async function searchCommand(
  query: string,
  o: { store: string; mode: "lexical" | "dense" | "hybrid"; k?: number; modelsDir?: string; json?: boolean; runs: string },
  registry: NodeRegistry,
): Promise<number> {
  const g = retrievalGraph({ mode: o.mode, store: o.store, k: o.k ?? 10, ...(o.modelsDir ? { modelsDir: o.modelsDir } : {}) }, registry);
  const passages = await retrieve(cliSession(registry, o.runs, { store: o.store, modelsDir: o.modelsDir }), g, questionFromText(query));
  if (o.json) process.stdout.write(JSON.stringify(passages) + "\n");
  else
    process.stdout.write(
      table(
        ["#", "passage", "scores", "title"],
        passages.map((p, i) => [
          String(i + 1),
          p.id,
          Object.entries(p.scores)
            .map(([k, v]) => `${k}=${v.toFixed(3)}`)
            .join(" "),
          preview(p.title, 60),
        ]),
      ),
    );
  return 0;
}
