import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { newRunId, runKind, runMetrics, type RunEvent, type RunOrigin } from "@citeflow/core";
import { BlobStore } from "./blobs.js";
import { diffRuns, type RunDiff } from "./diff.js";
import { FileCache } from "./filecache.js";
import { ensureDir, removeStaleTemps } from "./fsutil.js";
import { readRunFile, type NodeRecord, type RunRecord, type SpanRecord, type StoredRunStatus } from "./reader.js";
import { RunRecorder } from "./recorder.js";
import { Redactor, secretsFromEnv } from "./redact.js";
import { CORRECTION_LABELS, CorrectionLog, type Correction, type StoredCorrection, type CorrectionProblem } from "./corrections.js";

export { CORRECTION_LABELS, type Correction, type StoredCorrection, type CorrectionProblem };

export { BlobStore, FileCache, RunRecorder, Redactor, secretsFromEnv, readRunFile, diffRuns };
export { AtomicFile, appendLines, inside, processAlive, READ_WHOLE_BYTES, readRegularFile, refuseLinks, removeStaleTemps, WriteError, writeFileAtomic } from "./fsutil.js";
export type * from "./reader.js";
export type * from "./diff.js";

export interface RunListing {
  runId: string;
  graph: string;
  status: StoredRunStatus;
  startedAt: number;
  ms?: number;
  /** A short description of the inputs: the question text, or "N questions". */
  question?: string;
  /** What the run was (core's runKind): "run", "run to papers", "node top · edited: top", … */
  kind: string;
  nodes: number;
  /** The front end that started it; unset for runs recorded before it was kept. */
  origin?: RunOrigin;
}

/** Where runs are stored when no folder is named, for every front end: `$CITEFLOW_RUNS`, else `./.citeflow`. */
export function defaultRunStore(env: Record<string, string | undefined>): string {
  return env.CITEFLOW_RUNS || ".citeflow";
}

export interface RunStoreOptions {
  /** Extra secret strings to scrub (environment credentials are always scrubbed). */
  secrets?: string[];
}

/**
 * A run store folder:
 *   runs/<runId>.jsonl   one line per run event, appended as it happens
 *   blobs/xx/<sha>.json  every value, once, by content hash
 *   cache/xx/<key>.json  node cache entries pointing at blobs
 *   corrections/<runId>.jsonl  users' corrections of a run's outputs (the run is never changed)
 */
export class RunStore {
  readonly dir: string;
  readonly blobs: BlobStore;
  readonly cache: FileCache;
  readonly #redactor: Redactor;

  constructor(dir: string, options: RunStoreOptions = {}) {
    this.dir = resolve(dir);
    this.#redactor = new Redactor([...secretsFromEnv(), ...(options.secrets ?? [])]);
    this.blobs = new BlobStore(join(this.dir, "blobs"), this.#redactor);
    this.cache = new FileCache(join(this.dir, "cache"), this.blobs);
    // What a killed writer left behind: temp files never renamed into place.
    for (const d of ["blobs", "cache"]) removeStaleTemps(join(this.dir, d));
  }

  get runsDir(): string {
    return join(this.dir, "runs");
  }

  runPath(runId: string): string {
    if (!/^[A-Za-z0-9._-]+$/.test(runId)) throw new Error(`"${runId}" is not a run id`);
    return join(this.runsDir, `${runId}.jsonl`);
  }

  /** A recorder for one run, to pass as the executor's `recorder`. */
  recorder(runId: string = newRunId()): { runId: string; record(event: RunEvent): void } {
    try {
      ensureDir(this.runsDir);
    } catch (e) {
      throw new Error(`the run store ${this.dir} cannot be written (${(e as Error).message}): choose another with --runs or $CITEFLOW_RUNS`, { cause: e });
    }
    const rec = new RunRecorder(this.runPath(runId), this.blobs, this.#redactor);
    return { runId, record: (e) => rec.record(e) };
  }

  /** Executor options that record into this store and reuse its cache. */
  runOptions(runId: string = newRunId()) {
    return { runId, cache: this.cache, recorder: this.recorder(runId) };
  }

  /** The runs, newest first. A run file that cannot be read (a FIFO, garbage) is left out and, given `problems`, named there; an empty one (a run killed before its first line) is left out quietly. */
  listRuns(problems?: string[]): RunListing[] {
    if (!existsSync(this.runsDir)) return [];
    const out: RunListing[] = [];
    for (const f of readdirSync(this.runsDir)) {
      if (!f.endsWith(".jsonl")) continue;
      let r: RunRecord;
      const path = join(this.runsDir, f);
      try {
        r = readRunFile(path);
      } catch (e) {
        if (!(statSync(path).isFile() && statSync(path).size === 0)) problems?.push(`${f.replace(/\.jsonl$/, "")} (${(e as Error).message})`);
        continue;
      }
      const question = this.#describeInputs(r);
      out.push({
        runId: r.runId,
        graph: r.graph.name,
        status: r.status,
        startedAt: r.startedAt,
        ...(r.ms !== undefined ? { ms: r.ms } : {}),
        ...(question !== undefined ? { question } : {}),
        kind: runKind(r.options ?? {}),
        nodes: r.nodes.length,
        ...(r.origin ? { origin: r.origin } : {}),
      });
    }
    return out.sort((a, b) => b.startedAt - a.startedAt || b.runId.localeCompare(a.runId));
  }

  hasRun(runId: string): boolean {
    return existsSync(this.runPath(runId)) && statSync(this.runPath(runId)).isFile();
  }

  readRun(runId: string): RunRecord {
    if (!this.hasRun(runId)) throw new Error(`no run "${runId}" in ${this.runsDir}`);
    return readRunFile(this.runPath(runId));
  }

  /** The stored value of a graph input of a run. */
  runInput(runId: string, name: string): unknown {
    const r = this.readRun(runId);
    const h = r.inputHashes[name];
    if (h === undefined) throw new Error(`run ${runId} has no input "${name}"`);
    return this.blobs.get(h);
  }

  /** A node's output values (all ports, or one). */
  nodeOutput(runId: string, nodeId: string, port?: string): unknown {
    const r = this.readRun(runId);
    const n = r.nodes.find((x) => x.id === nodeId);
    if (!n) throw new Error(`run ${runId} has no node "${nodeId}" (nodes: ${r.nodes.map((x) => x.id).join(", ")})`);
    return this.outputOf(n, port, runId);
  }

  /** The output values of a node record already read (no second read of the run file). */
  outputOf(n: NodeRecord, port?: string, runId = "this run"): unknown {
    if (!n.outputHashes) throw new Error(`node "${n.id}" of run ${runId} has no output (status: ${n.status}${n.error ? `: ${n.error.message}` : ""})`);
    if (port !== undefined) {
      const h = n.outputHashes[port];
      if (h === undefined) throw new Error(`node "${n.id}" has no output port "${port}" (ports: ${Object.keys(n.outputHashes).join(", ")})`);
      return this.blobs.get(h);
    }
    return Object.fromEntries(Object.entries(n.outputHashes).map(([p, h]) => [p, this.blobs.get(h)]));
  }

  /**
   * Record a correction of one of a run's outputs, after checking that the run, node and the
   * corrected item exist. Stored beside the run; the run's own record and blobs are untouched.
   */
  correct(runId: string, c: Correction): StoredCorrection {
    const value = this.nodeOutput(runId, c.nodeId) as Record<string, unknown>;
    const where = `run ${runId}, node "${c.nodeId}"`;
    if (c.kind === "verdict") {
      if (!CORRECTION_LABELS.includes(c.label)) throw new Error(`${where}: label "${c.label}" is not one of ${CORRECTION_LABELS.join(", ")}`);
      const verdicts = value.verdicts as Array<{ claimId: string; passageId?: string }> | undefined;
      if (!verdicts) throw new Error(`${where} has no verdicts (ports: ${Object.keys(value).join(", ")})`);
      if (!verdicts.some((v) => v.claimId === c.claimId && (c.passageId === undefined || v.passageId === c.passageId)))
        throw new Error(`${where}: no verdict for claim "${c.claimId}"${c.passageId ? ` and passage "${c.passageId}"` : ""} (claims: ${[...new Set(verdicts.map((v) => v.claimId))].join(", ")})`);
    } else if (c.kind === "answer") {
      if (typeof (value.answer as { text?: unknown } | undefined)?.text !== "string") throw new Error(`${where} has no answer (ports: ${Object.keys(value).join(", ")})`);
      if (!c.text.trim()) throw new Error(`${where}: the corrected answer is empty`);
    } else {
      const lists = Object.values(value).filter(Array.isArray) as Array<Array<{ id?: unknown }>>;
      if (!lists.some((l) => l.some((p) => p.id === c.passageId))) throw new Error(`${where}: no passage "${c.passageId}" in its outputs`);
    }
    return this.#corrections.append(runId, c);
  }

  corrections(runId: string): StoredCorrection[] {
    return this.#corrections.list(runId);
  }

  /** A run's corrections and the lines of its corrections file that are not corrections (file, line, why). */
  readCorrections(runId: string): ReturnType<CorrectionLog["read"]> {
    return this.#corrections.read(runId);
  }

  get #corrections(): CorrectionLog {
    return new CorrectionLog(join(this.dir, "corrections"), (t) => this.#redactor.redact(t));
  }

  /** A span's data, read from its blob when it was too large to stay on the run's line. */
  spanData(s: SpanRecord): Record<string, unknown> | undefined {
    const d = s.data as Record<string, unknown> | undefined;
    return d && typeof d.$blob === "string" ? (this.blobs.get(d.$blob) as Record<string, unknown>) : d;
  }

  /** The run with every span's data inline (what a viewer of the trace wants). */
  readRunInline(runId: string): RunRecord {
    const r = this.readRun(runId);
    const inline = (spans: SpanRecord[]): SpanRecord[] => spans.map((s) => ({ ...s, ...(s.data !== undefined ? { data: this.spanData(s) } : {}), children: inline(s.children) }));
    return { ...r, nodes: r.nodes.map((n) => ({ ...n, spans: inline(n.spans) })) };
  }

  /** Per node and per run, with the metrics of each run side by side. */
  diff(a: string, b: string): RunDiff {
    const ra = this.readRun(a);
    const rb = this.readRun(b);
    const ma = this.metrics(ra);
    const mb = this.metrics(rb);
    const names = [...new Set([...Object.keys(ma), ...Object.keys(mb)])].sort();
    return { ...diffRuns(ra, rb), metrics: names.map((name) => ({ name, ...(ma[name] !== undefined ? { a: ma[name] } : {}), ...(mb[name] !== undefined ? { b: mb[name] } : {}) })) };
  }

  /** A run's numbers (core's runMetrics over its finished nodes) and its total ms. */
  metrics(r: RunRecord): Record<string, number> {
    const done = r.nodes.filter((n) => n.status === "done" && n.outputHashes);
    return {
      ...(r.ms !== undefined ? { ms: r.ms } : {}),
      ...runMetrics(done.map((n) => ({ id: n.id, output: (port: string) => (n.outputHashes![port] ? this.blobs.get(n.outputHashes![port]!) : undefined) }))),
    };
  }

  #describeInputs(r: RunRecord): string | undefined {
    for (const h of Object.values(r.inputHashes)) {
      let v: unknown;
      try {
        v = this.blobs.get(h);
      } catch {
        continue;
      }
      if (Array.isArray(v)) return `${v.length} questions`;
      if (typeof v === "object" && v !== null && typeof (v as { text?: unknown }).text === "string") return (v as { text: string }).text;
    }
    return undefined;
  }
}
