import { randomBytes } from "node:crypto";
import {
  evidenceInDocument,
  questionRuns,
  PREVIEW_CHARS,
  reduceRunEvent,
  startedRun,
  storedNodeProgress,
  type RunProgress,
  type CompiledGraph,
  type GraphDoc,
  type RunEvent,
  type RunHandle,
  type RunOptions,
  type Question,
} from "@citeflow/core";
import { QuestionSet, type Session } from "@citeflow/host";
import { questionsAtOnce, type CiteflowServices } from "@citeflow/nodes";
import { renderEvidencePage } from "@citeflow/retrieval";
import { defaultRunStore, RunStore, type Correction, type NodeRecord, type RunRecord, type StoredCorrection } from "@citeflow/runstore";
import { newDisplay, SHOWN_IN, showBundle, type MimeBundle } from "./display.js";
import { host, services } from "./services.js";
import { splitRef, type Claim, type Passage, type RunOrigin, type Verdict } from "@citeflow/core";
import { bundleFor, previewOutputs, verdictsBundle, viewBundle, VIEW_VERSION, type RunNodeView, type RunView } from "./mime.js";

/** Where notebook runs are stored: the one default of every front end (`defaultRunStore`: `$CITEFLOW_RUNS`, else `./.citeflow`). */
export function defaultRunsDir(): string {
  return defaultRunStore(process.env);
}

/** The node registry this process's runs use (its host's): a node registered here is one the editor can run too. */
export const registry = host().registry;

/**
 * This kernel's session: the built-in nodes, its services (`services()`, or the ones given) and a run store (default
 * `$CITEFLOW_RUNS` or `./.citeflow`); its runs are recorded as a notebook's unless the editor says they are its own.
 */
export function session(runs: string | RunStore = defaultRunsDir(), withServices: CiteflowServices = services(), origin: RunOrigin = "notebook"): Session {
  return host().session(runs, origin, withServices);
}

/** A graph from a file path (an existing file wins), a template name (`verifai`, `core-gpt`, `openscholar`, `arxivbot`), or a document (the host's `openGraph`). */
export function graph(source: string | GraphDoc): CompiledGraph {
  return host().openGraph(source);
}

/** Values for the graph's inputs; a string is the question for a graph with one Question input. */
export type RunInputs = string | Record<string, unknown>;

export interface StartOptions extends Omit<RunOptions, "cache" | "recorder" | "inputs" | "runId" | "services"> {
  /** The services this run uses (default this kernel's, `services()`). */
  services?: CiteflowServices;
  /** Run store folder (default `$CITEFLOW_RUNS` or `./.citeflow`). */
  runs?: string;
  /** Show a live status display that updates as nodes finish (default true in the kernel). */
  display?: boolean;
}

const BUNDLE = Symbol.for("citeflow.bundle");
/** Largest JSON size of the outputs put into a run's display payload. */
const OUTPUT_BUDGET = 2_000_000;

/** A run in progress: steer it (step, continue, abort), watch it, await `done`. */
export class LiveRun {
  readonly handle: RunHandle;
  readonly store: RunStore;
  readonly done: Promise<Run>;
  readonly #displayId = randomBytes(8).toString("hex");
  /** Where each selected node is, folded from the run's events by core's `reduceRunEvent`. */
  #progress: RunProgress;
  #pauseWaiters: Array<(at: string | undefined) => void> = [];
  #timer: NodeJS.Timeout | undefined;
  #shown = false;

  constructor(
    readonly graph: CompiledGraph,
    inputs: RunInputs,
    readonly options: StartOptions = {},
  ) {
    const { runs, display: _d, services: given, ...request } = options;
    const s = session(runs, given ?? services());
    this.store = s.store;
    // A question as text → the graph's inputs by the rule the CLI and the editor use too.
    this.handle = s.start(graph, typeof inputs === "string" ? questionRuns(graph.doc, { question: inputs })[0]!.inputs : inputs, request);
    this.#progress = startedRun(this.handle.runId, this.handle.selected);
    const watching = this.#watch();
    this.done = this.handle.result.then(async () => {
      await watching;
      const run = Run.open(this.handle.runId, this.store.dir);
      if (this.#shown) {
        this.#flush(run.bundle());
        run[SHOWN_IN] = this.#displayId;
      }
      return run;
    });
    // A run nobody awaits must not end the process with an unhandled rejection.
    this.done.catch(() => undefined);
  }

  get runId(): string {
    return this.handle.runId;
  }

  step(): void {
    this.handle.step();
  }

  /** Resolves with the node the run is paused before, once it pauses (now, if it already is), or undefined when it ends. */
  paused(): Promise<string | undefined> {
    if (this.handle.pausedAt !== undefined || (this.#progress.status !== "running" && this.#progress.status !== "paused")) return Promise.resolve(this.handle.pausedAt);
    return new Promise((resolve) => this.#pauseWaiters.push(resolve));
  }

  /** Run the node the run is paused before, then wait for the next pause (or the end). */
  async next(): Promise<string | undefined> {
    if (this.handle.pausedAt === undefined) return this.paused();
    const at = this.handle.pausedAt;
    this.handle.step();
    // The gate opens synchronously; wait for a pause at another node or the end.
    for (;;) {
      const now = await new Promise<string | undefined>((resolve) => this.#pauseWaiters.push(resolve));
      if (now !== at) return now;
    }
  }
  continue(): void {
    this.handle.continue();
  }
  abort(reason = "aborted"): void {
    this.handle.abort(new Error(reason));
  }

  /** The live view: per-node status so far. */
  view(): RunView {
    const nodes: RunNodeView[] = this.handle.selected.map((id) => ({ id, type: this.graph.nodes.get(id)!.def.type, ...this.#progress.nodes[id]! }));
    return { version: VIEW_VERSION, kind: "run", runId: this.runId, status: this.#progress.status, graph: this.graph.doc, runStore: this.store.dir, nodes };
  }

  async #watch() {
    if (this.options.display !== false) this.#schedule();
    for await (const e of this.handle.events) this.#apply(e);
    if (this.#timer) clearTimeout(this.#timer);
  }

  #apply(e: RunEvent) {
    const next = reduceRunEvent(this.#progress, e);
    if (next === this.#progress) return;
    this.#progress = next;
    if (e.type === "node-paused" || e.type === "run-end") for (const w of this.#pauseWaiters.splice(0)) w(e.type === "node-paused" ? e.nodeId : undefined);
    if (this.options.display !== false) this.#schedule(e.type === "node-paused");
  }

  #schedule(now = false) {
    if (now || !this.#shown) return this.#flush(viewBundle(this.view()));
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flush(viewBundle(this.view()));
    }, 100);
  }

  #flush(bundle: MimeBundle) {
    showBundle(bundle, { id: this.#displayId, update: this.#shown });
    this.#shown = true;
  }
}

/** Start a run and return at once; see LiveRun. */
export function start(g: CompiledGraph | string, inputs: RunInputs, options: StartOptions = {}): LiveRun {
  return new LiveRun(typeof g === "string" ? graph(g) : g, inputs, options);
}

/** Run a graph to the end (or its first error), recording it in the run store, with a live display. */
export async function run(g: CompiledGraph | string, inputs: RunInputs, options: StartOptions = {}): Promise<Run> {
  return start(g, inputs, options).done;
}

export interface SetOptions extends StartOptions {
  /**
   * Questions at once. Default: as `citeflow run --questions` decides (nodes' questionsAtOnce): 4,
   * or the server limit, when every language model the graph calls is served; else 1.
   */
  parallel?: number;
}

/**
 * The graph once per question, `parallel` at once: the runs come back in the questions' order, as
 * a one-at-a-time set gives them (the same inputs, so the same runs and cache keys), with one
 * display line for the set (core's SetTally: done, in flight, failed, questions a minute, time
 * left) instead of a display per run. A run that ends in error counts as failed and is returned
 * with the rest; one that cannot start stops the set.
 */
export async function runQuestions(g: CompiledGraph | string, questions: Array<string | Question>, options: SetOptions = {}): Promise<Run[]> {
  const compiled = typeof g === "string" ? graph(g) : g;
  const { parallel, display: shown = true, runs, services: given, ...request } = options;
  const withServices = given ?? services();
  const atOnce = parallel ?? questionsAtOnce(compiled, withServices);
  const s = session(runs, withServices);
  const line = shown ? newDisplay() : undefined;
  // The host's one question-set loop; each run is read back from the store as it ends.
  const set = new QuestionSet(s, compiled, questionRuns(compiled.doc, { questions }), {
    parallel: atOnce,
    request,
    follow: async (run) => {
      await run.result;
      return Run.open(run.runId, s.store.dir);
    },
    progress: (now) => line?.(now.tally.text()),
  });
  line?.(set.tally.text());
  return set.results;
}

/** A finished (or stored) run, read back from the run store. */
export class Run {
  /** The live display this run was shown in as it ran, if any. */
  [SHOWN_IN]?: string;

  constructor(
    readonly record: RunRecord,
    readonly store: RunStore,
  ) {}

  static open(runId: string, runs: string = defaultRunsDir()): Run {
    const store = new RunStore(runs);
    return new Run(store.readRun(runId), store);
  }

  get id(): string {
    return this.record.runId;
  }
  get status(): RunRecord["status"] {
    return this.record.status;
  }
  get nodes(): NodeRecord[] {
    return this.record.nodes;
  }

  node(id: string): NodeRecord {
    const n = this.record.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`run ${this.id} has no node "${id}" (nodes: ${this.record.nodes.map((x) => x.id).join(", ")})`);
    return n;
  }

  /** A node's output: one port, or all ports as an object. */
  output(nodeId: string, port?: string): unknown {
    return this.store.outputOf(this.node(nodeId), port, this.id);
  }

  input(name: string): unknown {
    return this.store.runInput(this.id, name);
  }

  /** The value a node received on an input port (the upstream output feeding it). */
  inputOf(nodeId: string, port: string): unknown {
    const edges = this.record.graph.edges.filter((e) => e.to === `${nodeId}.${port}`);
    if (edges.length === 0) throw new Error(`node "${nodeId}" has no edge into port "${port}"`);
    const values = edges.map((e) => {
      const from = splitRef(e.from);
      return from && this.output(from.node, from.port);
    });
    return values.length === 1 ? values[0] : values;
  }

  /** Record a correction of this run's output (stored beside the run; exports use it). */
  correct(c: Correction): StoredCorrection {
    return this.store.correct(this.id, c);
  }

  corrections(): StoredCorrection[] {
    return this.store.corrections(this.id);
  }

  /** Claims with their verdicts from a verify.nli node, shown in Verif.ai's colours. */
  verdicts(nodeId = "verify"): Shown {
    return new Shown(verdictsBundle(this.output(nodeId, "verdicts") as Verdict[], this.inputOf(nodeId, "claims") as Claim[], (this.inputOf(nodeId, "passages") as Passage[] | undefined) ?? []));
  }

  /**
   * The PDF page a verdict's evidence sits on, with the sentence marked: "open at page" in a
   * notebook. `claimId` picks the verdict (default: the first with evidence in a PDF passage).
   */
  async evidencePage(claimId?: string, nodeId = "verify"): Promise<Shown> {
    const verdicts = this.output(nodeId, "verdicts") as Verdict[];
    const passages = new Map(((this.inputOf(nodeId, "passages") as Passage[] | undefined) ?? []).map((p) => [p.id, p]));
    const inPdf = (v: Verdict) => {
      const p = v.evidence && passages.get(v.evidence.passageId);
      const where = p && evidenceInDocument(v.evidence!, p);
      return where?.path ? { e: v.evidence!, where: { ...where, path: where.path } } : undefined;
    };
    const found = verdicts
      .filter((x) => claimId === undefined || x.claimId === claimId)
      .map(inPdf)
      .find((x) => x);
    if (!found) throw new Error(`${nodeId}: no verdict${claimId ? ` for claim ${claimId}` : ""} with evidence in a PDF passage`);
    const page = await renderEvidencePage(found.where);
    return new Shown({ "image/png": Buffer.from(page.png).toString("base64"), "text/plain": `${found.where.path}, page ${page.page}: "${found.e.sentence}"` });
  }

  /** Display a node's output the way Citeflow shows it (passages, answer, verdicts, or JSON). */
  show(nodeId: string, port?: string): void {
    const value = this.output(nodeId, port);
    showBundle(bundleFor(value) ?? { "application/json": value as object, "text/plain": JSON.stringify(value, null, 2) });
  }

  view(): RunView {
    const r = this.record;
    const nodes = r.nodes.map(
      (n) =>
        ({
          id: n.id,
          type: n.type,
          ...storedNodeProgress(n),
        }) as RunNodeView,
    );
    const outputs: Record<string, Record<string, unknown>> = {};
    let budget = OUTPUT_BUDGET;
    for (const n of r.nodes) {
      if (!n.outputHashes) continue;
      const value = previewOutputs(this.store.outputOf(n) as Record<string, unknown>);
      const size = JSON.stringify(value).length;
      if (size > budget) continue;
      budget -= size;
      outputs[n.id] = value;
    }
    const question = this.#question();
    return {
      version: VIEW_VERSION,
      kind: "run",
      runId: r.runId,
      status: r.status,
      graph: r.graph,
      runStore: this.store.dir,
      nodes,
      outputs,
      preview: PREVIEW_CHARS,
      ...(r.ms !== undefined ? { ms: r.ms } : {}),
      ...(r.error ? { error: r.error.message } : {}),
      ...(question ? { question } : {}),
    };
  }

  bundle(): MimeBundle {
    return viewBundle(this.view());
  }

  [BUNDLE](): MimeBundle {
    return this.bundle();
  }

  #question(): string | undefined {
    for (const name of Object.keys(this.record.inputHashes)) {
      const v = this.input(name) as { text?: unknown } | undefined;
      if (v && typeof v.text === "string") return v.text;
    }
    return undefined;
  }
}

/** A prepared view: shown by `display(x)` or as a cell's last value. */
export class Shown {
  constructor(readonly data: MimeBundle) {}
  [BUNDLE](): MimeBundle {
    return this.data;
  }
}

/** The bundle a value asks to be shown as (`[Symbol.for("citeflow.bundle")]()`), else Citeflow's view of it. */
export function richBundle(value: unknown): MimeBundle | undefined {
  if (typeof value === "object" && value !== null && typeof (value as { [BUNDLE]?: unknown })[BUNDLE] === "function") return (value as { [BUNDLE]: () => MimeBundle })[BUNDLE]();
  return bundleFor(value);
}
