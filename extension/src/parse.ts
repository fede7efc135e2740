/**
 * Reading a `*.citeflow.json` file into the editor. The shape is checked here (what the canvas
 * needs to draw it); what the nodes mean (types, ports, params) is the kernel's to check when it
 * runs. A file that does not read is never drawn or written over.
 */
import type { GraphDoc, GraphEdge, GraphNode } from "@citeflow/core/browser";
import { splitRef } from "./model";

/** At most this many problems are listed; the rest are counted. */
const SHOWN = 8;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isRef = (v: unknown): v is string => typeof v === "string" && v.lastIndexOf(".") > 0 && !v.endsWith(".");

/**
 * Parses and checks a graph file. Throws an Error whose message starts with the path and lists
 * every problem with its place in the document (`nodes[2].id`, `edges[0].to`).
 */
export function parseGraph(text: string, path: string): GraphDoc {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not JSON (${(e as Error).message})`, { cause: e });
  }
  if (!isObject(raw) || raw.citeflow !== 1) throw new Error(`${path}: not a Citeflow graph (no "citeflow": 1 at the top)`);
  const problems: string[] = [];
  const bad = (where: string, what: string) => problems.push(`${where}: ${what}`);
  if (raw.name !== undefined && typeof raw.name !== "string") bad("name", "must be a string");
  if (raw.inputs !== undefined && !isObject(raw.inputs)) bad("inputs", "must be an object");
  const nodeList = Array.isArray(raw.nodes);
  if (!nodeList) bad("nodes", "must be a list");
  if (!Array.isArray(raw.edges)) bad("edges", "must be a list");
  const nodes = nodeList ? (raw.nodes as unknown[]) : [];
  const edges = Array.isArray(raw.edges) ? (raw.edges as unknown[]) : [];
  const seen = new Map<string, number>();
  nodes.forEach((n, i) => {
    const at = `nodes[${i}]`;
    if (!isObject(n)) return void bad(at, "must be an object");
    if (typeof n.id !== "string" || !n.id) bad(`${at}.id`, "must be a non-empty string");
    else if (seen.has(n.id)) bad(`${at}.id`, `"${n.id}" is also the id of nodes[${seen.get(n.id)}]`);
    else seen.set(n.id, i);
    if (typeof n.type !== "string" || !n.type) bad(`${at}.type`, "must be a non-empty string");
    if (n.version !== undefined && typeof n.version !== "number") bad(`${at}.version`, "must be a number");
    if (n.params !== undefined && !isObject(n.params)) bad(`${at}.params`, "must be an object");
    if (n.ui !== undefined && !(isObject(n.ui) && Number.isFinite(n.ui.x) && Number.isFinite(n.ui.y))) bad(`${at}.ui`, "must be { x: number, y: number }");
  });
  edges.forEach((e, i) => {
    const at = `edges[${i}]`;
    if (!isObject(e)) return void bad(at, "must be an object");
    for (const end of ["from", "to"] as const) {
      const ref = e[end];
      if (!isRef(ref)) {
        bad(`${at}.${end}`, `must be "node.port", not ${JSON.stringify(ref)}`);
        continue;
      }
      const { node } = splitRef(ref);
      if (nodeList && !seen.has(node)) bad(`${at}.${end}`, `no node "${node}" in this graph`);
    }
  });
  if (problems.length) {
    const more = problems.length > SHOWN ? `\n… and ${problems.length - SHOWN} more` : "";
    throw new Error(`${path}: ${problems.length === 1 ? "1 problem" : `${problems.length} problems`}\n${problems.slice(0, SHOWN).join("\n")}${more}`);
  }
  return {
    citeflow: 1,
    name: typeof raw.name === "string" ? raw.name : "untitled",
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    inputs: (raw.inputs ?? {}) as GraphDoc["inputs"],
    nodes: nodes.map((n) => ({ version: 1, params: {}, ...(n as object) }) as GraphNode),
    edges: edges as GraphEdge[],
  };
}
