import type { CompiledGraph } from "@citeflow/core";
import type { ChatChoice } from "./llm.js";
import type { CiteflowServices } from "./services.js";

/** The language models a graph calls, in node order: each node with a chat model (not the extractive generator). */
export function chatChoices(graph: CompiledGraph, services: CiteflowServices): ChatChoice[] {
  return graph.order.flatMap((id) => {
    const node = graph.nodes.get(id)!;
    const p = node.params as { model?: string; baseUrl?: string; generator?: string };
    return typeof p.baseUrl === "string" && p.generator !== "extractive" ? [services.chatChoice({ model: p.model ?? "", baseUrl: p.baseUrl }, node.def.type)] : [];
  });
}

/** Questions of a set at once when the user gives no number, from every front end. */
export const SERVED_PARALLEL = 4;

/**
 * Questions of a set at once when the user does not say: several only when the graph calls a
 * language model and every one it calls is served (none runs in this process, whose cores one
 * question already keeps busy): the server limit $CITEFLOW_SERVER_CONCURRENCY, else 4.
 */
export function questionsAtOnce(graph: CompiledGraph, services: CiteflowServices): number {
  const choices = chatChoices(graph, services);
  return choices.length > 0 && choices.every((c) => c.kind === "http") ? (services.config.serverLimits?.concurrent ?? SERVED_PARALLEL) : 1;
}
