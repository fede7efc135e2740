import { readFileSync } from "node:fs";
import { validateGraph, type CompiledGraph, type NodeRegistry, type Problem } from "@citeflow/core";
import { FailureError } from "./errors.js";

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new FailureError(`cannot read graph ${path}: ${(e as Error).message}`);
  }
}

export function validateGraphFile(path: string, registry: NodeRegistry): { graph?: CompiledGraph; problems: Problem[] } {
  return validateGraph(read(path), registry, { source: path });
}
