/** The run host below every front end: graphs opened with their folder, sessions, the runs in progress. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineNode, loadGraph } from "@citeflow/core";
import { abortActiveRuns, activeRun, openGraph, Session } from "@citeflow/host";
import { CiteflowServices, configFromEnv, createRegistry, createServices } from "@citeflow/nodes";
import { z } from "zod";
import { doc, tempDir, testRegistry } from "../helpers.js";

/** A node that says in which folder its services read `file:` prompts. */
const folderNode = defineNode({
  type: "test.folder",
  version: 1,
  title: "Prompt folder",
  family: "test",
  description: "Its services' graph folder",
  inputs: {},
  outputs: { dir: { type: "Text" } },
  params: z.object({}),
  async run(_i, _p, ctx) {
    return { dir: (ctx.services as CiteflowServices).config.graphDir };
  },
});

describe("@citeflow/host", () => {
  it("openGraph keeps a graph file's folder, a document's given folder, and none for a template", () => {
    const registry = createRegistry();
    const dir = join(tempDir(), "graphs");
    mkdirSync(dir);
    const template = openGraph("verifai", registry);
    expect(template.folder).toBeUndefined();
    writeFileSync(join(dir, "mine.citeflow.json"), JSON.stringify({ ...template.doc, name: "mine" }));
    expect(openGraph(join(dir, "mine.citeflow.json"), registry).folder).toBe(dir);
    expect(openGraph(template.doc, registry, dir).folder).toBe(dir);
    expect(openGraph(template.doc, registry).folder).toBeUndefined();
  });

  it("a session reads a graph's prompts in its folder; every run it starts is among the runs in progress until it ends, and an interrupt aborts them all", async () => {
    const registry = testRegistry().register(folderNode);
    const services = createServices(configFromEnv({}, tempDir()));
    const session = new Session(registry, services, tempDir());
    const folder = tempDir();
    const graph = { ...loadGraph(doc({ a: ["test.const", {}], b: ["test.add", {}] }, ["a.out->b.a"]), registry), folder };
    // Paused before its first node: it stays in progress.
    const paused = session.start(graph, {}, { step: true });
    const other = new Session(registry, services, tempDir()).start(graph, {}, { step: true });
    expect(activeRun(paused.runId)).toBe(paused);
    expect(activeRun(other.runId)).toBe(other);
    expect(abortActiveRuns("interrupted")).toBe(2);
    expect((await paused.result).status).toBe("aborted");
    expect((await other.result).status).toBe("aborted");
    expect(activeRun(paused.runId)).toBeUndefined();
    // The run's services read `file:` prompts in the graph's folder; the session's own stay as they were.
    const done = await session.start({ ...loadGraph(doc({ f: ["test.folder", {}] }), registry), folder }, {}).result;
    expect(done.status).toBe("ok");
    expect(done.nodes[0]!.outputs!.dir).toBe(folder);
    expect(services.config.graphDir).not.toBe(folder);
  });
});
