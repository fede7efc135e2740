import { existsSync, readFileSync } from "node:fs";
import { appendLines } from "@citeflow/runstore";
import { join } from "node:path";
import { compileTemplate, docIdOf, mapInOrder, type CompiledGraph, type Passage, type RunHandle, type Services } from "@citeflow/core";
import type { ChatModel } from "@citeflow/models";
import type { RunStore, SpanRecord } from "@citeflow/runstore";
import { exportDataset, type ExportResult } from "./export.js";
import type { Format } from "./formats.js";

export interface SynthOptions {
  /** Store to sample abstracts from (and the pipeline's retrieval store). */
  store: string;
  n: number;
  out: string;
  chat: ChatModel;
  /** What the sampling and the question prompt use (the pipeline's runs get theirs from `session`). */
  services: Services;
  /**
   * Where the pipeline runs: the host every front end runs graphs through (`@citeflow/host`'s Session), over the
   * run store in this folder (`<out>/runs`): its runs are tracked and aborted with the others, and read a graph
   * file's `file:` prompts from that file's folder.
   */
  session: (runs: string) => SynthSession;
  seed?: number;
  minYear?: number;
  maxYear?: number;
  minCitations?: number;
  /** The pipeline, opened by the caller as every graph is (`openGraph`: an existing file wins over a template's name): Question in, judge nodes inside. */
  graph: CompiledGraph;
  rubric?: { organisation: number; factuality: number };
  formats?: Format[];
  /** Prompt for writing a question from an abstract (default file:openscholar.question.v1). */
  questionPrompt?: string;
  onProgress?: (stage: "questions" | "runs", done: number, total: number) => void;
  /** Questions written and pipeline runs made at once (default 1): more keep a served model busy; files and results keep the one-at-a-time order. */
  parallel?: number;
}

/** What synth asks of the run host (the host's Session is one). */
export interface SynthSession {
  readonly store: RunStore;
  start(graph: CompiledGraph, inputs: Record<string, unknown>): RunHandle;
}

export interface SynthResult {
  abstracts: number;
  questions: number;
  /** Runs finished now and in earlier (interrupted) invocations. */
  runs: { ok: number; failed: string[]; resumed: number };
  tokens: { prompt: number; completion: number; calls: number };
  exports: Record<string, ExportResult>;
}

interface QuestionLine {
  docId: string;
  passageId: string;
  question: string;
}

interface DoneLine {
  questionId: string;
  runId: string;
  status: string;
}

function readLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return []; // a line cut short by a kill: that item is redone
      }
    });
}

/** Token usage of every traced model call in a run. */
function runTokens(store: RunStore, runId: string): { prompt: number; completion: number; calls: number } {
  const t = { prompt: 0, completion: 0, calls: 0 };
  const walk = (spans: SpanRecord[]) => {
    for (const s of spans) {
      const d = store.spanData(s);
      const u = d?.usage as { promptTokens?: number; completionTokens?: number } | undefined;
      if (u) {
        t.prompt += u.promptTokens ?? 0;
        t.completion += u.completionTokens ?? 0;
        t.calls++;
      }
      walk(s.children);
    }
  };
  for (const n of store.readRun(runId).nodes) walk(n.spans);
  return t;
}

/**
 * OpenScholar's synthetic data loop: sample abstracts, have the LLM write a literature-review
 * question from each, run the pipeline on every question, filter (pairwise and rubric judges in
 * the graph, thresholds here) and export. Everything is appended as it finishes
 * (`questions.jsonl`, `done.jsonl`, the run store in `runs/`), so a killed synth resumes where it
 * stopped and re-asks nothing that was answered.
 */
export async function synthesize(o: SynthOptions): Promise<SynthResult> {
  const questionsPath = join(o.out, "questions.jsonl");
  const donePath = join(o.out, "done.jsonl");
  // The pipeline is checked before any question is asked of the model.
  const graph = o.graph;
  const inputName = Object.entries(graph.doc.inputs).find(([, s]) => s.type === "Question")?.[0];
  if (!inputName) throw new Error(`graph "${graph.doc.name}" has no Question input`);
  const session = o.session(join(o.out, "runs"));
  const runs = session.store;
  const tokens = { prompt: 0, completion: 0, calls: 0 };

  const store = await o.services.store(o.store);
  const abstracts: Passage[] = await store.sample(o.n, {
    seed: o.seed ?? 0,
    ...(o.minYear !== undefined ? { minYear: o.minYear } : {}),
    ...(o.maxYear !== undefined ? { maxYear: o.maxYear } : {}),
    ...(o.minCitations !== undefined ? { minCitations: o.minCitations } : {}),
  });
  if (abstracts.length === 0) throw new Error(`no abstract in ${o.store} passes the filters (year ${o.minYear ?? "any"}–${o.maxYear ?? "any"}, citations ≥ ${o.minCitations ?? 0})`);

  const asked = new Map(readLines<QuestionLine>(questionsPath).map((q) => [q.passageId, q]));
  const template = compileTemplate(o.services.prompt(o.questionPrompt ?? "file:openscholar.question.v1"));
  // Questions are written `parallel` at a time, and appended in the abstracts' order.
  const parallel = o.parallel ?? 1;
  await mapInOrder(
    abstracts,
    parallel,
    async (passage): Promise<QuestionLine | undefined> => {
      if (asked.has(passage.id)) return undefined;
      const r = await o.chat.chat([{ role: "user", content: template.render({ passage }) }], { maxTokens: 96, temperature: 0.7, ...(o.seed !== undefined ? { seed: o.seed } : {}) });
      tokens.prompt += r.usage?.promptTokens ?? 0;
      tokens.completion += r.usage?.completionTokens ?? 0;
      tokens.calls++;
      const question = r.text
        .trim()
        .split("\n")
        .find((l) => l.trim())
        ?.replace(/^(question\s*:\s*)/i, "")
        .trim();
      if (!question) throw new Error(`the LLM wrote no question for ${passage.id}`);
      return { docId: docIdOf(passage.id), passageId: passage.id, question };
    },
    (line, i) => {
      if (line) {
        appendLines(questionsPath, JSON.stringify(line) + "\n");
        asked.set(line.passageId, line);
      }
      o.onProgress?.("questions", i + 1, abstracts.length);
    },
  );

  const done = new Map(
    readLines<DoneLine>(donePath)
      .filter((d) => d.status === "ok")
      .map((d) => [d.questionId, d]),
  );
  const resumed = done.size;
  const failed: string[] = [];
  const items = abstracts.map((p) => asked.get(p.id)!);
  // Runs go `parallel` at a time; done.jsonl and the failures keep the questions' order.
  await mapInOrder(
    items,
    parallel,
    async (q): Promise<{ line: DoneLine; error?: string } | undefined> => {
      const questionId = `synth-${q.docId}`;
      if (done.has(questionId)) return undefined;
      const handle = session.start(graph, { [inputName]: { id: questionId, text: q.question } });
      const r = await handle.result;
      const line: DoneLine = { questionId, runId: r.runId, status: r.status };
      return r.status === "ok" ? { line } : { line, error: r.error?.message ?? r.nodes.find((n) => n.error)?.error?.message ?? r.status };
    },
    (made, i) => {
      if (made) {
        appendLines(donePath, JSON.stringify(made.line) + "\n");
        if (made.error === undefined) done.set(made.line.questionId, made.line);
        else failed.push(`${made.line.questionId} (${made.error})`);
      }
      o.onProgress?.("runs", i + 1, items.length);
    },
  );
  const runIds = [...done.values()].map((d) => d.runId);
  for (const id of runIds) {
    const t = runTokens(runs, id);
    tokens.prompt += t.prompt;
    tokens.completion += t.completion;
    tokens.calls += t.calls;
  }

  const exports: Record<string, ExportResult> = {};
  const rubric = o.rubric ?? { organisation: 4.5, factuality: 4.5 };
  for (const format of o.formats ?? (["sft", "openscholar", "dpo", "kto"] as Format[]))
    exports[format] = exportDataset({
      runs: runs.dir,
      services: o.services,
      runIds,
      format,
      out: join(o.out, format),
      rubric,
      command: `citeflow synth --store ${o.store} --n ${o.n} --out ${o.out} --seed ${o.seed ?? 0} --min-organisation ${rubric.organisation} --min-factuality ${rubric.factuality}`,
    });
  return { abstracts: abstracts.length, questions: asked.size, runs: { ok: done.size, failed, resumed }, tokens, exports };
}
