import { errorInfo, type CacheStatus, type NodeSummary, type RunEvent, type RunStatus } from "./events.js";
import { EventLog } from "./eventlog.js";
import { descendants, type CompiledGraph, type CompiledNode } from "./graph.js";
import { canonicalJson } from "./canonical.js";
import { hashText, hashValue } from "./hash.js";
import { noServices, type Services } from "./node.js";
import { inNode, nodeContext } from "./context.js";
import { checkInputs, checkOutputs } from "./checks.js";
import { checkRunRequest, selectNodes } from "./select.js";
import { summarizeOutputs } from "./summary.js";
import { qualityWarnings } from "./warnings.js";
import { AbortError, newRunId, type NodeResult, type RunOptions, type RunResult } from "./run-types.js";

export * from "./run-types.js";
export { describeIssues } from "./checks.js";

export async function runGraph(graph: CompiledGraph, options: RunOptions = {}): Promise<RunResult> {
  return startRun(graph, options).result;
}

/** Start a run. Read `events` for progress, steer it with continue/step/pause/abort, await `result`. */
export function startRun(graph: CompiledGraph, options: RunOptions = {}): RunHandle {
  return new RunHandle(graph, options);
}

export class RunHandle {
  readonly runId: string;
  readonly events = new EventLog<RunEvent>();
  readonly result: Promise<RunResult>;
  /** Nodes this run will execute or reuse, in topological order. */
  readonly selected: string[];

  #stepMode: boolean;
  #breakpoints: Set<string>;
  #gate: { nodeId: string; resume: () => void } | undefined;
  #ac = new AbortController();
  #forced: Set<string>;
  #recordChain: Promise<void> = Promise.resolve();
  #recordError: unknown;
  #services: Services;

  constructor(
    readonly graph: CompiledGraph,
    readonly options: RunOptions,
  ) {
    this.runId = options.runId ?? newRunId();
    this.#stepMode = options.step ?? false;
    this.#breakpoints = new Set(options.breakpoints ?? []);
    this.#services = options.services ?? noServices;
    const { selected, forced } = selectNodes(graph, options);
    this.selected = selected;
    this.#forced = forced;
    checkRunRequest(graph, this.selected, options);
    if (options.signal) {
      if (options.signal.aborted) this.#ac.abort(options.signal.reason);
      else options.signal.addEventListener("abort", () => this.abort(options.signal!.reason), { once: true });
    }
    this.result = this.#execute();
  }

  /** The node the run is paused before, if it is paused. */
  get pausedAt(): string | undefined {
    return this.#gate?.nodeId;
  }

  /** Resume and run until the next breakpoint. */
  continue(): void {
    this.#stepMode = false;
    this.#release();
  }

  /** Resume, and pause again before the next node. */
  step(): void {
    this.#stepMode = true;
    this.#release();
  }

  /** Pause before the next node that starts. */
  pause(): void {
    this.#stepMode = true;
  }

  setBreakpoints(ids: Iterable<string>): void {
    this.#breakpoints = new Set(ids);
  }

  abort(reason?: unknown): void {
    if (!this.#ac.signal.aborted) this.#ac.abort(reason ?? new AbortError("run aborted"));
    this.#release();
  }

  #release() {
    const g = this.#gate;
    this.#gate = undefined;
    g?.resume();
  }

  #emit(event: RunEvent) {
    this.events.push(event);
    const rec = this.options.recorder;
    if (rec)
      this.#recordChain = this.#recordChain.then(async () => {
        if (this.#recordError !== undefined) return;
        try {
          await rec.record(event);
        } catch (e) {
          // A run that cannot be recorded must not go on as if it were: stop it and say why.
          this.#recordError = e;
          this.abort(e);
        }
      });
  }

  async #execute(): Promise<RunResult> {
    await Promise.resolve(); // let the caller attach to events before the first one
    const t0 = performance.now();
    const g = this.graph;
    const o = this.options;
    const results = new Map<string, NodeResult>();
    this.#emit({
      type: "run-start",
      runId: this.runId,
      at: Date.now(),
      graph: g.doc,
      graphHash: hashValue(g.doc),
      inputs: o.inputs ?? {},
      selected: this.selected,
      ...(o.origin ? { origin: o.origin } : {}),
      options: {
        ...(o.to !== undefined ? { to: o.to } : {}),
        ...(o.from !== undefined ? { from: o.from } : {}),
        ...(o.only !== undefined ? { only: o.only } : {}),
        force: o.force ?? false,
        overridden: Object.keys(o.overrides ?? {}),
        breakpoints: [...this.#breakpoints],
        step: this.#stepMode,
      },
    });

    const concurrency = Math.max(1, o.concurrency ?? 4);
    const pending = new Set(this.selected);
    const running = new Map<string, Promise<void>>();
    const signal = this.#ac.signal;

    const skipDescendants = (failed: string) => {
      for (const d of descendants(g, failed)) {
        if (!pending.has(d)) continue;
        pending.delete(d);
        results.set(d, { id: d, status: "skipped", upstream: failed });
        this.#emit({ type: "node-skipped", runId: this.runId, at: Date.now(), nodeId: d, reason: "upstream-failed", upstream: failed });
      }
    };

    for (;;) {
      if (signal.aborted) break;
      // Every parent of a selected node is selected too, so "ready" is: all parents done.
      const ready = this.selected.filter((id) => pending.has(id) && g.nodes.get(id)!.parents.every((p) => results.get(p)?.status === "done"));
      let launched = false;
      for (const id of ready) {
        if (running.size >= concurrency || signal.aborted) break;
        const reason = this.#stepMode ? "step" : this.#breakpoints.has(id) ? "breakpoint" : undefined;
        if (reason) {
          await this.#pauseBefore(id, reason);
          if (signal.aborted) break;
        }
        pending.delete(id);
        launched = true;
        const p = this.#runNode(g.nodes.get(id)!, results).then((r) => {
          results.set(id, r);
          running.delete(id);
          if (r.status !== "done") skipDescendants(id);
        });
        running.set(id, p);
      }
      if (running.size === 0) {
        if (!launched) break;
        continue;
      }
      await Promise.race([...running.values()]);
    }
    await Promise.all(running.values());

    for (const id of this.selected) {
      if (!pending.has(id)) continue;
      results.set(id, { id, status: "skipped" });
      this.#emit({ type: "node-skipped", runId: this.runId, at: Date.now(), nodeId: id, reason: "aborted" });
    }

    const ordered = this.selected.map((id) => results.get(id)!);
    const ms = performance.now() - t0;
    // A recorder failure aborts the run; it is reported as an error, with the recorder's message.
    const status = (): RunStatus => (this.#recordError !== undefined ? "error" : signal.aborted ? "aborted" : ordered.every((r) => r.status === "done") ? "ok" : "error");
    const recordError = () => (this.#recordError !== undefined ? { error: errorInfo(this.#recordError) } : {});
    this.#emit({ type: "run-end", runId: this.runId, at: Date.now(), status: status(), ms, nodes: ordered.map(summary), ...recordError() });
    await this.#recordChain;
    this.events.close();
    return { runId: this.runId, status: status(), ms, nodes: ordered, ...recordError() };
  }

  async #pauseBefore(nodeId: string, reason: "step" | "breakpoint") {
    await new Promise<void>((resume) => {
      this.#gate = { nodeId, resume };
      this.#emit({ type: "node-paused", runId: this.runId, at: Date.now(), nodeId, reason });
    });
    if (!this.#ac.signal.aborted) this.#emit({ type: "node-resumed", runId: this.runId, at: Date.now(), nodeId });
  }

  async #runNode(node: CompiledNode, results: Map<string, NodeResult>): Promise<NodeResult> {
    const t0 = performance.now();
    const { id, def } = node;
    const o = this.options;
    const signal = this.#ac.signal;

    const inputs: Record<string, unknown> = {};
    const inputHashes: Record<string, string | string[] | null> = {};
    for (const [port, spec] of Object.entries(def.inputs)) {
      const refs = node.incoming[port] ?? [];
      const values = refs.map((r) => results.get(r.node)!.outputs![r.port]);
      const hashes = refs.map((r) => results.get(r.node)!.outputHashes![r.port]!);
      if (spec.many) {
        inputs[port] = values;
        inputHashes[port] = hashes;
      } else {
        inputs[port] = values[0];
        inputHashes[port] = hashes[0] ?? null;
      }
    }
    const graphInput = node.graphInput !== undefined ? o.inputs?.[node.graphInput] : undefined;
    let cacheKey: string | undefined;

    try {
      cacheKey = hashValue({
        type: def.type,
        version: def.version,
        params: node.params,
        inputs: inputHashes,
        graphInput: node.graphInput !== undefined ? hashValue(graphInput ?? null) : null,
        fingerprint: def.fingerprint ? await def.fingerprint(node.params, this.#services) : null,
      });
      this.#emit({ type: "node-start", runId: this.runId, at: Date.now(), nodeId: id, nodeType: def.type, version: def.version, params: node.params, inputHashes, cacheKey });
      let outputs: Record<string, unknown>;
      let hashes: Record<string, string>;
      let cache: CacheStatus = "miss";
      // What the node's spans said (`span.set(…)`): the models it ran, its calls' finish reasons.
      const spans: Record<string, unknown>[] = [];
      let models: string[] = [];
      let warnings: string[];
      const cacheable = def.cacheable !== false && o.cache !== undefined;
      let hit = cacheable && !this.#forced.has(id) ? await o.cache!.get(cacheKey) : undefined;
      // A cache is a file anyone could have changed: what it holds is checked against the node's output ports, and a
      // value that does not fit is a miss, said in the node's warnings, never a crash downstream.
      let cacheWarning: string | undefined;
      if (hit)
        try {
          hit = { ...hit, outputs: checkOutputs(node, hit.outputs) };
        } catch (e) {
          cacheWarning = `its cached result did not fit its output ports (${(e as Error).message}): it ran again`;
          hit = undefined;
        }
      if (hit) {
        outputs = hit.outputs;
        hashes = hit.hashes;
        models = hit.models ?? [];
        warnings = hit.warnings ?? qualityWarnings({ inputs, outputs, spans });
        cache = "hit";
      } else {
        checkInputs(this.graph, node, inputs);
        const emit = (e: RunEvent) => {
          if (e.type === "span-end" && e.data) spans.push(e.data);
          this.#emit(e);
        };
        const ctx = nodeContext({ runId: this.runId, nodeId: id, signal, services: this.#services, graphInput, emit });
        const produced = await raceAbort(
          inNode(id, () => def.run(inputs, node.params, ctx)),
          signal,
        );
        outputs = checkOutputs(node, produced);
        const texts = Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, canonicalJson(v)]));
        hashes = Object.fromEntries(Object.entries(texts).map(([k, text]) => [k, hashText(text)]));
        // The models a node ran are named by its spans (`span.set("model", id)`): the one rule for every node.
        models = [...new Set(spans.map((d) => d.model).filter((m): m is string => typeof m === "string"))];
        warnings = [...(cacheWarning ? [cacheWarning] : []), ...qualityWarnings({ inputs, outputs, spans })];
        if (cacheable) await o.cache!.set(cacheKey, { nodeType: def.type, version: def.version, outputs, hashes, ...(models.length ? { models } : {}), warnings, texts });
      }
      const override = o.overrides?.[id];
      let overridden: string[] | undefined;
      if (override) {
        outputs = { ...outputs };
        hashes = { ...hashes };
        overridden = Object.keys(override);
        for (const port of overridden) {
          outputs[port] = override[port];
          hashes[port] = hashValue(override[port]);
        }
        warnings = qualityWarnings({ inputs, outputs, spans: [] });
      }
      const ms = performance.now() - t0;
      this.#emit({
        type: "node-end",
        runId: this.runId,
        at: Date.now(),
        nodeId: id,
        cache,
        ms,
        outputs,
        outputHashes: hashes,
        summary: summarizeOutputs(outputs),
        ...(models.length ? { models } : {}),
        ...(warnings.length ? { warnings } : {}),
        ...(overridden ? { overridden } : {}),
      });
      return { id, status: "done", cache, ms, cacheKey, outputs, outputHashes: hashes, ...(overridden ? { overridden } : {}) };
    } catch (e) {
      const ms = performance.now() - t0;
      const aborted = signal.aborted;
      const err = aborted && !(e instanceof AbortError) && e === signal.reason ? new AbortError("run aborted") : e;
      const info = errorInfo(err);
      this.#emit({ type: "node-error", runId: this.runId, at: Date.now(), nodeId: id, ms, error: info });
      return { id, status: aborted ? "aborted" : "error", ms, ...(cacheKey ? { cacheKey } : {}), error: info };
    }
  }
}

function summary(r: NodeResult): NodeSummary {
  return { id: r.id, status: r.status, ...(r.cache ? { cache: r.cache } : {}), ...(r.ms !== undefined ? { ms: r.ms } : {}) };
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The node's work started as the run was aborted: it ends as it will, and its failure is not the run's.
    p.catch(() => undefined);
    return Promise.reject(new AbortError("run aborted"));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError("run aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
