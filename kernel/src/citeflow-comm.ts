import { COMM_VERSION, errorInfo, questionRuns, type CompiledGraph, type Method, type GraphDoc, type MethodResult, type Reach, type RunEvent, type RunHandle } from "@citeflow/core";
import { allow, defaultRunsDir, services, graphReach, registry, RunStore, session, templateNames } from "citeflow";
import { activeRun, openGraph } from "@citeflow/host";
import { FORMATS, type ExportResult, type Format } from "@citeflow/datasets";
import { modelCard } from "@citeflow/models";
import { catalogueWithModels, questionsAtOnce } from "@citeflow/nodes";
import { renderEvidencePage } from "@citeflow/retrieval";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { Comm, CommHandler } from "./comm.js";
import { StoreThread } from "./store-jobs.js";
import { QuestionSets } from "./question-sets.js";

type Request = { id?: string | number; method?: string } & Record<string, unknown>;

/** The methods that only steer a run in progress. */
const STEERING = new Set(["abort", "abortSet", "pause", "step", "continue", "breakpoints"]);

class RequestError extends Error {
  override name = "RequestError";
}

function need<T>(req: Request, key: string, kind: "string" | "number" | "object"): T {
  const v = req[key];
  if (kind === "object" ? typeof v !== "object" || v === null : typeof v !== kind) throw new RequestError(`"${req.method}" needs "${key}" (${kind})`);
  return v as T;
}

/** Strip bulky values from events sent over the comm: outputs are fetched with "output". */
function slim(e: RunEvent): unknown {
  if (e.type === "node-end") {
    const { outputs: _o, ...rest } = e;
    return rest;
  }
  return e;
}

/**
 * The `citeflow` comm: what the pipeline editor uses to drive the kernel. Each request carries an
 * `id` and a `method`; each gets one `{type:"reply", id, ok, result | error}`; runs stream
 * `{type:"event", runId, event}` messages. See kernel/README.md for every method.
 */
export function citeflowTarget(comm: Comm, openData: unknown): CommHandler {
  const runsDir = (openData as { runs?: unknown } | undefined)?.runs;
  // Opened once: runs record into it; the store's thread opens its own for the file work.
  const store = new RunStore(typeof runsDir === "string" ? runsDir : defaultRunsDir());
  const storeDir = store.dir;
  const files = new StoreThread();
  // The runs this comm started (the host keeps every run in progress: activeRun).
  const mine = new Set<string>();

  const graphOf = (req: Request): CompiledGraph => {
    const g = req.graph;
    if (g === undefined) throw new RequestError(`"${req.method}" needs "graph" (a template name, a file path or a graph document)`);
    if (typeof g === "string") return openGraph(g, registry);
    // A document the editor read from a file: its relative `file:` prompts are read in that file's folder.
    // The Jupyter server may give its root as "~/…".
    const folder = req.folder === undefined ? undefined : need<string>(req, "folder", "string").replace(/^~(?=\/|$)/, homedir());
    if (folder !== undefined && !isAbsolute(folder)) throw new RequestError(`"folder" must be an absolute path, got ${JSON.stringify(folder)}`);
    if (typeof g !== "object" || g === null) throw new RequestError(`"graph" must be a template name, a file path or a graph document`);
    return openGraph(g as GraphDoc, registry, folder);
  };
  // A run streams its events to the editor and is steerable by its id while it runs.
  const follow = async (r: RunHandle) => {
    mine.add(r.runId);
    for await (const e of r.events) comm.send({ type: "event", runId: r.runId, event: slim(e) });
    await r.result.catch(() => undefined);
    mine.delete(r.runId);
  };
  const sets = new QuestionSets((progress) => comm.send({ type: "set", progress }), follow);
  /**
   * A graph file cannot choose where requests go or which model files load: servers and models
   * folders it names that the user has not configured start a run only once the user agreed (the
   * editor's dialog sends them back in allowEndpoints); they are then allowed for this kernel's life. One request in the common case.
   */
  const unconsented = (req: Request, g: CompiledGraph): Reach[] => {
    const agreed = Array.isArray(req.allowEndpoints) ? req.allowEndpoints.map(String) : [];
    for (const target of agreed) allow(target);
    return graphReach(g.doc.nodes, services()).filter((r) => r.kind !== "file" && !r.allowed);
  };
  const pick = (req: Request, keys: string[]) => Object.fromEntries(keys.filter((k) => req[k] !== undefined).map((k) => [k, req[k]]));
  const live = (req: Request): RunHandle => {
    const id = need<string>(req, "runId", "string");
    const r = mine.has(id) ? activeRun(id) : undefined;
    if (!r) throw new RequestError(`no run "${id}" in progress`);
    return r;
  };

  // Typed by the protocol's results; every parameter is still checked here, since a message is input.
  const methods: { [M in Method]: (req: Request) => MethodResult<M> | Promise<MethodResult<M>> } = {
    hello: () => ({ version: COMM_VERSION, runStore: storeDir, templates: templateNames(), exportFormats: FORMATS }),
    // Model params offer the installed models of their kind (catalogueWithModels).
    catalogue: () => catalogueWithModels(registry, services().config.modelsDirs),
    // What a graph would reach outside the process (servers, files), each allowed or not.
    reach: (req) => graphReach(graphOf(req).doc.nodes, services()),
    run: (req) => {
      const g = graphOf(req);
      const needsConsent = unconsented(req, g);
      if (needsConsent.length) return { needsConsent };
      // The editor sends its question (and question set); the inputs follow the rule the CLI and notebooks use.
      const asked = req.question !== undefined || req.questions !== undefined;
      const inputs = asked
        ? questionRuns(g.doc, { ...(typeof req.question === "string" ? { question: req.question } : {}), ...(Array.isArray(req.questions) ? { questions: req.questions.map(String) } : {}) })[0]!.inputs
        : req.inputs;
      // The kernel's session, with its services as notebooks in this kernel have configured them now.
      const r = session(store, services(), "editor").start(g, (inputs ?? {}) as Record<string, unknown>, pick(req, ["to", "from", "only", "force", "overrides", "breakpoints", "step", "concurrency"]));
      void follow(r);
      return { runId: r.runId, selected: r.selected };
    },
    // One run a question, `parallel` at once (default: the rule `citeflow run --questions` follows), progress as "set" messages.
    runSet: (req) => {
      const g = graphOf(req);
      const questions = need<unknown[]>(req, "questions", "object");
      if (!Array.isArray(questions) || questions.length === 0 || questions.some((q) => typeof q !== "string" || !q.trim()))
        throw new RequestError(`"runSet" needs "questions": a list of one or more questions, none empty`);
      const parallel = req.parallel === undefined ? questionsAtOnce(g, services()) : need<number>(req, "parallel", "number");
      if (!Number.isInteger(parallel) || parallel < 1) throw new RequestError(`"parallel" must be a whole number of 1 or more, got ${parallel}`);
      const needsConsent = unconsented(req, g);
      if (needsConsent.length) return { needsConsent };
      const runs = questionRuns(g.doc, { questions: questions as string[] });
      return sets.start(session(store, services(), "editor"), g, runs, parallel, pick(req, ["to", "force", "overrides"]));
    },
    abortSet: (req) => {
      const id = need<string>(req, "setId", "string");
      if (!sets.abort(id)) throw new RequestError(`no question set "${id}" in progress`);
      return null;
    },
    step: (req) => (live(req).step(), { pausedAt: live(req).pausedAt ?? null }),
    continue: (req) => (live(req).continue(), null),
    pause: (req) => (live(req).pause(), null),
    abort: (req) => (live(req).abort(new Error("aborted")), null),
    breakpoints: (req) => (live(req).setBreakpoints(need<string[]>(req, "nodes", "object")), null),
    // File work on the store's thread: the kernel keeps answering while it reads and writes.
    runs: async (req) => (await files.run<MethodResult<"runs">>({ kind: "runs", runs: storeDir })).filter((r) => req.graphName === undefined || r.graph === req.graphName),
    record: (req) => files.run({ kind: "record", runs: storeDir, runId: need<string>(req, "runId", "string") }),
    output: (req) =>
      files.run({
        kind: "output",
        runs: storeDir,
        runId: need<string>(req, "runId", "string"),
        nodeId: need<string>(req, "nodeId", "string"),
        port: typeof req.port === "string" ? req.port : undefined,
      }),
    correct: (req) => files.run({ kind: "correct", runs: storeDir, runId: need<string>(req, "runId", "string"), correction: need(req, "correction", "object") }),
    diff: (req) => files.run({ kind: "diff", runs: storeDir, a: need<string>(req, "a", "string"), b: need<string>(req, "b", "string") }),
    modelCard: (req) => modelCard(need<string>(req, "model", "string"), services().config.modelsDirs) ?? null,
    // A PDF passage's page with a span of its text marked (a verdict's evidence), as base64 PNG.
    evidencePage: async (req) => {
      const sha256 = typeof req.sha256 === "string" ? req.sha256 : undefined;
      const r = await renderEvidencePage({
        path: need<string>(req, "path", "string"),
        start: need<number>(req, "start", "number"),
        end: need<number>(req, "end", "number"),
        ...(sha256 ? { sha256 } : {}),
      });
      return { page: r.page, png: Buffer.from(r.png).toString("base64"), width: r.width, height: r.height, boxes: r.boxes };
    },
    export: async (req) => {
      const format = need<string>(req, "format", "string") as Format;
      const out = resolve(need<string>(req, "out", "string"));
      const opts = Object.fromEntries(["split", "seed", "metadata", "runIds", "parquet"].filter((k) => req[k] !== undefined).map((k) => [k, req[k]]));
      const result = await files.run<ExportResult>({
        kind: "export",
        options: { runs: storeDir, config: services().config, format, out, ...opts, command: `citeflow export --runs ${storeDir} --format ${format} --out ${out}` },
      });
      return { out, ...result };
    },
  };

  return {
    // Steering a run already under way needs nothing a busy cell holds: the editor's Stop works while a cell runs.
    urgent: (data) => STEERING.has(String((data as Request | null)?.method)),
    onMessage(data) {
      const req = (data ?? {}) as Request;
      const id = req.id ?? null;
      const fail = (e: unknown) => {
        const { name, message } = errorInfo(e);
        comm.send({ type: "reply", id, ok: false, error: { name, message } });
      };
      try {
        const method = typeof req.method === "string" && Object.hasOwn(methods, req.method) ? (methods[req.method as Method] as (req: Request) => unknown) : undefined;
        if (!method) throw new RequestError(`unknown method ${JSON.stringify(req.method)} (methods: ${Object.keys(methods).join(", ")})`);
        const result = method(req);
        // Most methods answer at once; the few that read files answer when they are done.
        if (result instanceof Promise) result.then((r) => comm.send({ type: "reply", id, ok: true, result: r ?? null }), fail);
        else comm.send({ type: "reply", id, ok: true, result: result ?? null });
      } catch (e) {
        fail(e);
      }
    },
    onClose() {
      sets.abortAll();
      for (const id of mine) activeRun(id)?.abort(new Error("comm closed"));
      void files.close();
    },
  };
}
