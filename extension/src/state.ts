/**
 * Everything one open pipeline editor knows: the document with its undo history, the catalogue,
 * the selection, and the state of the current run as its events arrive. React views read it;
 * commands and the canvas change it through its methods; `changed` tells the views to redraw.
 */
import {
  reduceRunEvent,
  startedRun,
  type Catalogue,
  type CorrectionInput,
  type GraphDoc,
  type GraphEdge,
  type GraphNode,
  type Reach,
  type SetProgressView,
  type StreamedRunEvent,
} from "@citeflow/core/browser";
import { Signal, type ISignal } from "@lumino/signaling";
import type { CiteflowClient } from "./client";
import { StoredRuns } from "./stored";
import { autoLayout, moveNodes, pasteNodes, removeNodes, saveGraph, splitRef } from "./model";
import { trans } from "./i18n";
import { oneLine, questionsOf } from "./questions";
import { storedRunState, type RunState } from "./run-state";
import { UndoHistory } from "./undo";
import { withConsent } from "./with-consent";

export interface RunOptions {
  to?: string;
  from?: string;
  only?: string;
  step?: boolean;
  overrides?: Record<string, Record<string, unknown>>;
}

export class EditorState {
  doc: GraphDoc;
  catalogue: Catalogue | undefined;
  /** The node the inspector shows and "run to / from / only" act on: the last one picked. */
  selected: string | undefined;
  /** Every selected node (box select, Ctrl/Cmd-click, select all); copy, cut, delete and drags take them all. */
  selection: ReadonlySet<string> = new Set();
  /** An output port picked on the canvas: the inspector scrolls to it. */
  port: string | undefined;
  run: RunState | undefined;
  question = "";
  /** For a graph that takes one question: the box takes one a line, and Run runs the pipeline once a line (a question set). */
  perLine = false;
  /** The question set this editor started last, as the kernel last told its progress. */
  set: SetProgressView | undefined;
  /** Progress of sets by id, kept from the moment a set starts: its first message may come before the reply. */
  readonly #setProgress = new Map<string, SetProgressView>();
  breakpoints = new Set<string>();
  /** Why the last attempted connection was refused (shown as a tooltip on the canvas). */
  refusal: string | undefined;
  error: string | undefined;
  /**
   * Why the file does not read as a graph (it names each problem and where), while it does not:
   * nothing is drawn, run or written over until the file reads again.
   */
  unreadable: string | undefined;
  /** Opens this file in JupyterLab's text editor (set by the plugin), to fix an unreadable file. */
  openAsText: (() => void) | undefined;
  /**
   * Asks the user whether the graph may reach servers they have not configured (set by the
   * plugin: a dialog); without it such a run does not start.
   */
  confirmServers: ((servers: Reach[]) => Promise<boolean>) | undefined;
  /** The file and the catalogue have arrived: the canvas can lay out and fit the view. */
  loaded = false;
  readonly client: CiteflowClient;
  /** What the views ask of the kernel about runs, traces, corrections, PDF pages and exports. */
  readonly stored: StoredRuns;
  readonly #history = new UndoHistory<GraphDoc>();
  #clipboard: { nodes: GraphNode[]; edges: GraphEdge[] } | undefined;
  readonly #outputs = new Map<string, Promise<Record<string, unknown>>>();
  readonly #changed = new Signal<this, void>(this);
  readonly #docChanged = new Signal<this, GraphDoc>(this);

  constructor(
    doc: GraphDoc,
    client: CiteflowClient,
    /** The folder of the document's file on the kernel's machine, where its relative `file:` prompts are read. */
    readonly folder: () => string | undefined = () => undefined,
  ) {
    this.doc = doc;
    this.client = client;
    this.stored = new StoredRuns(client, () => ({ runId: this.run?.runId, graphName: this.doc.name }));
    client.events.connect((_, { runId, event }) => this.#onEvent(runId, event));
    client.sets.connect((_, progress) => this.#onSet(progress));
  }

  /** Any change at all: redraw. */
  get changed(): ISignal<this, void> {
    return this.#changed;
  }

  /** The document changed through an edit (not a reload): write it to the file model. */
  get docChanged(): ISignal<this, GraphDoc> {
    return this.#docChanged;
  }

  emit(): void {
    this.#changed.emit();
  }

  /** Does the graph take a question set (a `Question[]` input)? Then the question box takes one per line. */
  get takesQuestionSet(): boolean {
    return Object.values(this.doc.inputs).some((i) => i.type === "Question[]");
  }

  get questionSet(): string[] {
    return questionsOf(this.doc, this.question, this.perLine).questions ?? [];
  }

  /** "One a line" on or off; off, the box's lines become one line, joined with a space (a one-line box would join them with nothing). */
  setPerLine(on: boolean): void {
    this.perLine = on;
    if (!on) this.question = oneLine(this.question);
    this.emit();
  }

  /** The box holds questions one a line: a graph that takes a set, or one that takes a question with "one a line" on. */
  get linesAreQuestions(): boolean {
    return this.takesQuestionSet || this.perLine;
  }

  /** An edit: recorded for undo, written to the file. */
  edit(next: GraphDoc): void {
    if (next === this.doc || this.unreadable) return;
    this.#history.record(this.doc);
    this.#apply(next, true);
  }

  /**
   * The file changed underneath (the text editor, revert, reload from disk): the canvas shows it
   * and nothing is written back. It is an undo entry like an edit, so undo returns to what the
   * canvas showed before it (after a spell of not reading, the last version that read), never to
   * an older version over it. The file's first read (`first`) is not an entry, nor is a change
   * that leaves the graph as it was (spacing, key order).
   */
  reload(doc: GraphDoc, first = false): void {
    if (!first) {
      if (saveGraph(doc) === saveGraph(this.doc)) return;
      this.#history.record(this.doc);
    }
    this.#apply(doc, false);
  }

  get canUndo(): boolean {
    return !this.unreadable && this.#history.canUndo;
  }

  get canRedo(): boolean {
    return !this.unreadable && this.#history.canRedo;
  }

  undo(): void {
    if (this.canUndo) this.#apply(this.#history.undo(this.doc)!, true);
  }

  redo(): void {
    if (this.canRedo) this.#apply(this.#history.redo(this.doc)!, true);
  }

  /** Shows `doc` (and writes it to the file when `write`): a selected node it no longer has is no longer selected. */
  #apply(doc: GraphDoc, write: boolean): void {
    this.doc = doc;
    // What the last run attempt said was wrong was said of the graph before this change.
    this.error = undefined;
    const ids = new Set(doc.nodes.map((n) => n.id));
    const live = [...this.selection].filter((id) => ids.has(id));
    if (live.length !== this.selection.size) this.selection = new Set(live);
    if (this.selected && !ids.has(this.selected)) this.selected = undefined;
    if (write) this.#docChanged.emit(doc);
    this.emit();
  }

  /** Selects one node alone, or nothing. */
  select(id: string | undefined): void {
    this.setSelection(id === undefined ? [] : [id], id);
  }

  /**
   * Selects these nodes; `primary` (kept when still selected, else the last of them) is the one
   * the inspector shows.
   */
  setSelection(ids: Iterable<string>, primary: string | undefined = this.selected): void {
    const selection = new Set(ids);
    const next = primary !== undefined && selection.has(primary) ? primary : [...selection].at(-1);
    if (next !== this.selected) this.port = undefined;
    this.selected = next;
    this.selection = selection;
    this.emit();
  }

  selectAll(): void {
    this.setSelection(this.doc.nodes.map((n) => n.id));
  }

  /** Stable, so canvas nodes can hold it without re-rendering. */
  readonly onPort = (id: string, port: string): void => this.selectPort(id, port);

  selectPort(id: string, port: string): void {
    this.selected = id;
    this.selection = new Set([id]);
    this.port = port;
    this.emit();
  }

  /** Copies the selected nodes and the edges among them; returns how many nodes were copied. */
  copy(): number {
    const set = this.selection;
    if (!set.size) return 0;
    this.#clipboard = {
      nodes: this.doc.nodes.filter((n) => set.has(n.id)),
      edges: this.doc.edges.filter((e) => set.has(splitRef(e.from).node) && set.has(splitRef(e.to).node)),
    };
    return this.#clipboard.nodes.length;
  }

  /** Copies the selected nodes, then deletes them (one undo entry). */
  cut(): void {
    if (this.copy()) this.deleteNodes(this.selection);
  }

  /** Adds copies of the clipboard's nodes, offset from the originals; the copies become the selection. */
  paste(): string[] {
    if (!this.#clipboard?.nodes.length) return [];
    const { doc, ids } = pasteNodes(this.doc, this.#clipboard.nodes, this.#clipboard.edges);
    this.edit(doc);
    this.setSelection(ids, ids[0]);
    return ids;
  }

  deleteNodes(ids: Iterable<string>): void {
    const set = new Set(ids);
    if (set.size) this.edit(removeNodes(this.doc, set));
  }

  /** Moves nodes (a drag of one node or of a selection, arrow keys) as one undo entry. */
  moveNodes(to: ReadonlyMap<string, { x: number; y: number }>): void {
    if (to.size) this.edit(moveNodes(this.doc, to));
  }

  layout(): void {
    this.edit(autoLayout(this.doc));
  }

  toggleBreakpoint(id: string | undefined = this.selected): void {
    if (id === undefined) return;
    if (this.breakpoints.has(id)) this.breakpoints.delete(id);
    else this.breakpoints.add(id);
    if (this.#running) void this.client.request("breakpoints", { runId: this.run!.runId, nodes: [...this.breakpoints] });
    this.emit();
  }

  async loadCatalogue(): Promise<void> {
    try {
      this.catalogue = await this.client.request("catalogue");
      this.error = undefined;
    } catch (e) {
      this.error = (e as Error).message;
    }
    this.emit();
  }

  /** Hides the banner that says what went wrong (an edit of the graph hides it too). */
  dismissError(): void {
    this.error = undefined;
    this.emit();
  }

  /** A run is under way, or a question set is. */
  get active(): boolean {
    return this.#running || this.set?.status === "running";
  }

  /** The run shown is under way (running or paused at a node). */
  get #running(): boolean {
    return this.run?.status === "running" || this.run?.status === "paused";
  }

  /**
   * Why this kind of run cannot start now, in words; undefined when it can. The toolbar's buttons
   * (as their tooltip) and the commands (menus, palette) ask the same question: every run needs a
   * question; "to", "from" and "only" need a selected node; "from" and "only" re-run it against a
   * run already shown.
   */
  cannotStart(kind: "all" | "to" | "from" | "only"): string | undefined {
    if (this.unreadable) return trans.__("The file does not read as a pipeline");
    if (this.active) return trans.__("A run is under way");
    if (this.perLine && !this.takesQuestionSet && kind !== "all") return trans.__("A question set runs whole pipelines: turn off one question a line to run part of it");
    if (!this.question.trim()) return trans.__("Type a question first");
    if (kind !== "all" && !this.selected) return trans.__("Select a node first");
    if ((kind === "from" || kind === "only") && !this.run) return trans.__("Run the pipeline first: this re-runs the selected node against the run shown");
    return undefined;
  }

  canStart(kind: "all" | "to" | "from" | "only"): boolean {
    return this.cannotStart(kind) === undefined;
  }

  /** Runs to, from, or only the selected node (the toolbar's buttons and the commands). */
  startAtSelected(kind: "to" | "from" | "only"): void {
    if (this.selected) void this.start({ [kind]: this.selected });
  }

  /** Starts a run of the document as it is now (unsaved edits included). */
  async start(options: RunOptions = {}): Promise<string | undefined> {
    if (this.unreadable) return undefined;
    if (this.perLine && !this.takesQuestionSet && !options.step) return this.#startSet();
    try {
      this.error = undefined;
      const folder = this.folder();
      const request = {
        graph: this.doc,
        ...(folder ? { folder } : {}),
        ...questionsOf(this.doc, this.question),
        ...options,
        ...(this.breakpoints.size ? { breakpoints: [...this.breakpoints] } : {}),
      };
      const reply = await withConsent(
        request,
        (r) => this.client.request("run", r),
        (servers) => this.#consentToServers(servers),
      );
      if (!reply) return undefined;
      const { runId, selected } = reply;
      // An event may have arrived before the reply: keep what it said.
      const early = this.run?.runId === runId ? this.run : undefined;
      const started = startedRun(runId, selected);
      this.run = { ...started, ...early, selected, nodes: { ...started.nodes, ...early?.nodes } };
      this.#outputs.clear();
      if (this.set && this.set.status !== "running") this.set = undefined; // a finished set's status is not this run's
      this.emit();
      return runId;
    } catch (e) {
      // Nothing ran: the last run's badges and status would read as this attempt's.
      this.error = (e as Error).message;
      this.run = undefined;
      this.#outputs.clear();
      this.emit();
      return undefined;
    }
  }

  /**
   * The pipeline once a line of the box (`runSet`): each question its own recorded run, as many
   * at once as the kernel decides (one for an in-process model); the canvas shows each run as it
   * starts, the toolbar the set's progress. The set's id, or undefined when nothing started.
   */
  async #startSet(): Promise<string | undefined> {
    try {
      this.error = undefined;
      this.#setProgress.clear();
      const folder = this.folder();
      const request = { graph: this.doc, ...(folder ? { folder } : {}), questions: this.questionSet };
      const reply = await withConsent(
        request,
        (r) => this.client.request("runSet", r),
        (servers) => this.#consentToServers(servers),
      );
      if (!reply) return undefined;
      const { setId, total } = reply;
      this.set = this.#setProgress.get(setId) ?? { setId, total, done: 0, inFlight: 0, failed: 0, text: "", runIds: [], status: "running" };
      this.emit();
      return setId;
    } catch (e) {
      this.error = (e as Error).message;
      this.set = undefined;
      this.emit();
      return undefined;
    }
  }

  #onSet(progress: SetProgressView): void {
    this.#setProgress.set(progress.setId, progress);
    if (this.set?.setId !== progress.setId) return;
    this.set = progress;
    if (progress.error) this.error = progress.error;
    this.emit();
  }

  /** What a graph names that the user has not configured (servers, models folders) runs only once the user agrees (the dialog); the kernel then allows it for its life. What was agreed to, or undefined when the user declined. */
  async #consentToServers(servers: Reach[]): Promise<string[] | undefined> {
    const targets = [...new Set(servers.map((s) => s.target))];
    if (await this.confirmServers?.(servers)) return targets;
    this.error = trans.__("Not run: the pipeline names servers you have not allowed (%1).", targets.join(", "));
    this.emit();
    return undefined;
  }

  async control(method: "step" | "continue" | "pause" | "abort"): Promise<void> {
    try {
      // Stop ends the whole set: no run of it starts after this, and those under way are aborted.
      if (method === "abort" && this.set?.status === "running") return void (await this.client.request("abortSet", { setId: this.set.setId }));
      if (!this.run) return;
      await this.client.request(method, { runId: this.run.runId });
    } catch (e) {
      this.error = (e as Error).message;
      this.emit();
    }
  }

  /** Records a correction of a node's output on the shown run (stored beside it; the run itself is unchanged), and shows it. */
  async correct(correction: CorrectionInput): Promise<void> {
    const runId = this.run?.runId;
    const stored = await this.stored.correct(correction);
    if (!this.run || this.run.runId !== runId) return;
    this.run = { ...this.run, corrections: [...(this.run.corrections ?? []), stored] };
    this.emit();
  }

  /** Shows a stored run (read-only): its badges from the record. */
  async openRun(runId: string): Promise<void> {
    const rec = await this.client.request("record", { runId });
    this.#outputs.clear();
    this.run = storedRunState(runId, rec);
    this.emit();
  }

  /** A node's stored outputs (port → value) in the current run, fetched once. */
  outputs(nodeId: string): Promise<Record<string, unknown>> | undefined {
    const run = this.run;
    const node = run?.nodes[nodeId];
    if (!run || node?.status !== "done") return undefined;
    const key = `${run.runId}/${nodeId}`;
    let p = this.#outputs.get(key);
    if (!p) {
      p = this.stored.outputs(run.runId, nodeId);
      p.catch(() => this.#outputs.delete(key));
      this.#outputs.set(key, p);
    }
    return p;
  }

  #onEvent(runId: string, e: StreamedRunEvent): void {
    if (!this.run || this.run.runId !== runId) {
      // Events can outrun the reply to "run": start collecting them. A question set's runs are shown as
      // they start, one at a time: the canvas stays on a run under way until it ends.
      if (e.type !== "run-start" || this.#running) return;
      this.run = { ...startedRun(runId, e.selected), selected: e.selected };
    }
    const next = reduceRunEvent(this.run, e);
    if (next === this.run) return;
    this.run = { ...next, selected: this.run.selected, ...(this.run.readOnly ? { readOnly: true } : {}) };
    this.emit();
  }
}
