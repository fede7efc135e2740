import { questionRuns, type CompiledGraph, type GraphDoc, type Reach, type RunEvent, type RunHandle } from "@citeflow/core";
import { activeRun, type Host } from "@citeflow/host";
import { questionsAtOnce } from "@citeflow/nodes";
import type { RunStore } from "@citeflow/runstore";
import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import { QuestionSets } from "./question-sets.js";
import { need, pick, RequestError, type Methods, type Request } from "./requests.js";

type RunMethod = "reach" | "run" | "runSet" | "abortSet" | "step" | "continue" | "pause" | "abort" | "breakpoints";

/** Strip bulky values from events sent over the comm: outputs are fetched with "output". */
function slim(e: RunEvent): unknown {
  if (e.type === "node-end") {
    const { outputs: _o, ...rest } = e;
    return rest;
  }
  return e;
}

/**
 * The comm's runs, hosted by the kernel's host: a graph opened from the request, consent for what it
 * reaches, a run or a question set started on a session over the comm's run store (the services as
 * notebooks in this kernel have configured them now) with its events streamed to the editor by
 * `send`, and the runs this comm started steered by id. `close` aborts them (the comm closed).
 */
export function runMethods(host: Host, store: RunStore, send: (message: unknown) => void): { methods: Methods<RunMethod>; close: () => void } {
  const session = () => host.session(store, "editor");
  // The runs this comm started (the host keeps every run in progress: activeRun).
  const mine = new Set<string>();
  const graphOf = (req: Request): CompiledGraph => {
    const g = req.graph;
    if (g === undefined) throw new RequestError(`"${req.method}" needs "graph" (a template name, a file path or a graph document)`);
    if (typeof g === "string") return host.openGraph(g);
    // A document the editor read from a file: its relative `file:` prompts are read in that file's folder.
    // The Jupyter server may give its root as "~/…".
    const folder = req.folder === undefined ? undefined : need<string>(req, "folder", "string").replace(/^~(?=\/|$)/, homedir());
    if (folder !== undefined && !isAbsolute(folder)) throw new RequestError(`"folder" must be an absolute path, got ${JSON.stringify(folder)}`);
    if (typeof g !== "object" || g === null) throw new RequestError(`"graph" must be a template name, a file path or a graph document`);
    return host.openGraph(g as GraphDoc, folder);
  };
  // A run streams its events to the editor and is steerable by its id while it runs.
  const follow = async (r: RunHandle) => {
    mine.add(r.runId);
    for await (const e of r.events) send({ type: "event", runId: r.runId, event: slim(e) });
    await r.result.catch(() => undefined);
    mine.delete(r.runId);
  };
  const sets = new QuestionSets((progress) => send({ type: "set", progress }), follow);
  // What the user has not agreed to yet (the host's consent rule): the editor's dialog asks, and sends the same request
  // with allowEndpoints, allowed for the kernel's life. One request in the common case.
  const unconsented = (req: Request, g: CompiledGraph): Reach[] => host.needsConsent(g, Array.isArray(req.allowEndpoints) ? req.allowEndpoints.map(String) : []);
  const live = (req: Request): RunHandle => {
    const id = need<string>(req, "runId", "string");
    const r = mine.has(id) ? activeRun(id) : undefined;
    if (!r) throw new RequestError(`no run "${id}" in progress`);
    return r;
  };

  const methods: Methods<RunMethod> = {
    // What a graph would reach outside the process (servers, files), each allowed or not.
    reach: (req) => host.reach(graphOf(req)),
    run: (req) => {
      const g = graphOf(req);
      const needsConsent = unconsented(req, g);
      if (needsConsent.length) return { needsConsent };
      // The editor sends its question (and question set); the inputs follow the rule the CLI and notebooks use.
      const asked = req.question !== undefined || req.questions !== undefined;
      const inputs = asked
        ? questionRuns(g.doc, { ...(typeof req.question === "string" ? { question: req.question } : {}), ...(Array.isArray(req.questions) ? { questions: req.questions.map(String) } : {}) })[0]!.inputs
        : req.inputs;
      const r = session().start(g, (inputs ?? {}) as Record<string, unknown>, pick(req, ["to", "from", "only", "force", "overrides", "breakpoints", "step", "concurrency"]));
      void follow(r);
      return { runId: r.runId, selected: r.selected };
    },
    // One run a question, `parallel` at once (default: the rule `citeflow run --questions` follows), progress as "set" messages.
    runSet: (req) => {
      const g = graphOf(req);
      const questions = need<unknown[]>(req, "questions", "object");
      if (!Array.isArray(questions) || questions.length === 0 || questions.some((q) => typeof q !== "string" || !q.trim()))
        throw new RequestError(`"runSet" needs "questions": a list of one or more questions, none empty`);
      const parallel = req.parallel === undefined ? questionsAtOnce(g, host.services) : need<number>(req, "parallel", "number");
      if (!Number.isInteger(parallel) || parallel < 1) throw new RequestError(`"parallel" must be a whole number of 1 or more, got ${parallel}`);
      const needsConsent = unconsented(req, g);
      if (needsConsent.length) return { needsConsent };
      const runs = questionRuns(g.doc, { questions: questions as string[] });
      return sets.start(session(), g, runs, parallel, pick(req, ["to", "force", "overrides"]));
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
  };
  const close = () => {
    sets.abortAll();
    for (const id of mine) activeRun(id)?.abort(new Error("comm closed"));
  };
  return { methods, close };
}
