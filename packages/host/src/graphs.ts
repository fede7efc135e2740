import { loadGraph, type CompiledGraph, type GraphDoc, type NodeRegistry } from "@citeflow/core";
import { findGraph } from "@citeflow/nodes";
import { readRegularFile } from "@citeflow/runstore";

/** A graph file is nodes, edges and params: 64 MiB is far past any real one (values belong in stores and run records). */
const GRAPH_BYTES = 64 * 2 ** 20;

/**
 * A graph from a file path (an existing file wins), a template name (`verifai`, `core-gpt`,
 * `openscholar`, `arxivbot`), or a document. A graph read from a file keeps that file's folder,
 * where its relative `file:` prompts are read (Session.start); a document read from a file by
 * someone else (the editor) names its folder.
 */
export function openGraph(source: string | GraphDoc, registry: NodeRegistry, folder?: string): CompiledGraph {
  if (typeof source !== "string") return { ...loadGraph(JSON.stringify(source), registry, { source: `graph "${source.name}"` }), ...(folder ? { folder } : {}) };
  const { path, dir } = findGraph(source);
  return { ...loadGraph(readRegularFile(path, GRAPH_BYTES, "a graph file"), registry, { source: path }), ...(dir ? { folder: dir } : {}) };
}
