/** The run host below every front end: graphs opened with their folder, sessions, the runs in progress. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineNode, loadGraph, questionRuns } from "@citeflow/core";
import { abortActiveRuns, activeRun, Host, openGraph, processHost, QuestionSet, Session } from "@citeflow/host";
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

/** A node that reads its question: "fail …" fails, "wait …" waits until its run is aborted, anything else gives its length. */
const questionNode = defineNode({
  type: "test.question",
  version: 1,
  title: "Question",
  family: "test",
  description: "Fails, waits or counts, as its question says",
  inputs: { question: { type: "Question" } },
  outputs: { out: { type: "Number" } },
  params: z.object({}),
  async run(i, _p, ctx) {
    if (i.question.text.startsWith("fail")) throw new Error("asked to fail");
    if (i.question.text.startsWith("wait")) await new Promise((_r, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
    return { out: i.question.text.length };
  },
});

/** A session over a fresh run store and a graph whose one node reads the question (questionNode). */
function questionSetup() {
  const registry = testRegistry().register(questionNode);
  const session = new Session(registry, createServices(configFromEnv({}, tempDir())), tempDir());
  const graph = loadGraph(doc({ q: ["input.question"], e: ["test.question", {}] }, ["q.question->e.question"], { question: { type: "Question" } }), registry);
  return { session, graph };
}

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

  it("a question set: each question's run started by the session, results in the questions' order, a failed run counted and the set goes on", async () => {
    const { session, graph } = questionSetup();
    const questions = ["a long first question", "fail here", "short", "a fourth one"];
    const seen: Array<[number, number, number]> = [];
    const inOrder: number[] = [];
    const set = new QuestionSet(session, graph, questionRuns(graph.doc, { questions }), {
      parallel: 2,
      follow: async (run, i) => ({ i, status: (await run.result).status, runId: run.runId }),
      inOrder: (_r, i) => inOrder.push(i),
      progress: (now) => seen.push([now.tally.done, now.tally.inFlight, now.tally.failed]),
    });
    const results = await set.results;
    expect(results.map((r) => [r.i, r.status])).toEqual([
      [0, "ok"],
      [1, "error"],
      [2, "ok"],
      [3, "ok"],
    ]);
    expect(inOrder).toEqual([0, 1, 2, 3]);
    expect(set.runIds).toEqual(results.map((r) => r.runId));
    expect(seen.at(-1)).toEqual([4, 0, 1]);
    expect(Math.max(...seen.map(([, inFlight]) => inFlight))).toBe(2);
    expect(session.store.readRun(results[2]!.runId).status).toBe("ok");
  });

  it("a question set aborted: the run in flight is aborted, no other starts, and the set says so", async () => {
    const { session, graph } = questionSetup();
    let started!: () => void;
    const first = new Promise<void>((r) => (started = r));
    const set = new QuestionSet(session, graph, questionRuns(graph.doc, { questions: ["wait for me", "never", "never either"] }), {
      parallel: 1,
      follow: async (run) => {
        started();
        return (await run.result).status;
      },
    });
    await first;
    set.abort();
    await expect(set.results).rejects.toThrow("aborted");
    expect(set.aborted).toBe(true);
    expect(set.runIds[0]).not.toBeNull();
    expect(set.runIds.slice(1)).toEqual([null, null]);
    expect(session.store.readRun(set.runIds[0]!).status).toBe("aborted");
    expect(set.tally.done).toBe(1);
  });
});

describe("a front end's host", () => {
  it("makes its services on first use; what `configure` changes, the sessions it opens after use, and consent is the host's rule", async () => {
    let made = 0;
    const host = new Host(createRegistry().register(folderNode), () => (made++, createServices(configFromEnv({}, tempDir()))));
    expect(made).toBe(0);
    const graph = host.openGraph(doc({ a: ["test.folder", {}] }, []));
    const before = host.session(tempDir()).services;
    expect(made).toBe(1);
    const store = tempDir();
    host.configure({ store });
    expect(host.session(tempDir()).services.config.store).toBe(store);
    expect(before.config.store).not.toBe(store);
    // A graph naming a server nobody configured needs consent; agreed once, it is allowed for the host's life.
    const elsewhere = host.openGraph(
      doc({ q: ["input.question"], e: ["query.enrich", { model: "m", baseUrl: "http://127.0.0.1:7/v1" }] }, ["q.question->e.question"], { question: { type: "Question" } }),
    );
    expect(host.needsConsent(elsewhere).map((r) => [r.node, r.target])).toEqual([["e", "http://127.0.0.1:7/v1"]]);
    expect(host.needsConsent(elsewhere, ["http://127.0.0.1:7/v1"])).toEqual([]);
    expect(host.needsConsent(elsewhere)).toEqual([]);
    expect((await host.session(tempDir()).start(graph, {}).result).status).toBe("ok");
    // The process's host is one, whoever asks (the kernel's comm and the notebook package in a kernel).
    expect(processHost(process.env)).toBe(processHost({}));
  });
});
