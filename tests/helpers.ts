import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { loadGraph, startRun, type RunEvent, type RunOptions } from "@citeflow/core";
import { configFromEnv, createServices, type CiteflowServices } from "@citeflow/nodes";
// @ts-expect-error: plain JS fixture shared with child processes
import * as fx from "./fixtures/test-nodes.mjs";

export const { doc, testRegistry, makeProbe } = fx as {
  doc: (nodes: Record<string, [string, Record<string, unknown>?, number?]>, edges?: string[], inputs?: Record<string, { type: string }>) => any;
  testRegistry: (o?: { addVersion?: number }) => import("@citeflow/core").NodeRegistry;
  makeProbe: () => { calls: Record<string, number>; active: number; maxActive: number };
};

const temps: string[] = [];
export function tempDir(prefix = "citeflow-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The rows of a JSON Lines file (an export's, a set's output). */
export function readJsonl(path: string): Array<Record<string, any>> {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
}

let loaded: CiteflowServices | undefined;
/**
 * Services from the environment as it is now: tests act as the edge and set variables between
 * runs. What is loaded (models, stores) stays loaded from test to test.
 */
export function envServices(): CiteflowServices {
  const config = configFromEnv(process.env);
  loaded = loaded ? loaded.with(config) : createServices(config);
  return loaded;
}

/** Load a doc with the test registry and run it, collecting every event. The test nodes count their calls in `services.probe`. */
export async function run(document: unknown, options: RunOptions = {}, registry = testRegistry()) {
  const graph = loadGraph(document, registry);
  const probe = makeProbe();
  const handle = startRun(graph, { ...options, services: Object.assign(options.services ?? envServices(), { probe }) });
  const events: RunEvent[] = [];
  const collecting = (async () => {
    for await (const e of handle.events) events.push(e);
  })();
  const result = await handle.result;
  await collecting;
  const byId = Object.fromEntries(result.nodes.map((n) => [n.id, n]));
  return { result, events, probe, byId, graph };
}

export function eventsOf<T extends RunEvent["type"]>(events: RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** Every file a model folder's SHA256SUMS lists has that hash; returns how many it lists. */
export function expectSha256Sums(dir: string): number {
  const lines = readFileSync(join(dir, "SHA256SUMS"), "utf8").trim().split("\n");
  for (const line of lines) {
    const [hash, file] = line.split(/\s+/);
    expect(
      createHash("sha256")
        .update(readFileSync(join(dir, file!)))
        .digest("hex"),
      file,
    ).toBe(hash);
  }
  return lines.length;
}
