import { docIdOf, evidenceInDocument, type Answer, type Claim, type Passage, type Question, type Services, type Verdict } from "@citeflow/core";
import type { ChatMessage } from "@citeflow/models";
import { answerMessages } from "@citeflow/nodes";
import type { CorrectionProblem, NodeRecord, RunRecord, RunStore, SpanRecord, StoredCorrection } from "@citeflow/runstore";
import { CALL_NODES, nodeCalls, type CallExample } from "./calls.js";
import { goldAnswer, goldPairs, type GoldLabels } from "./gold.js";
import type { EvidenceSpan, Provenance, QrelsMap } from "./provenance.js";
import { RunView } from "./run-view.js";

export type { EvidenceSpan, Provenance, QrelsMap } from "./provenance.js";

/** Where a verdict's evidence sentence sits: in the passage, in the document, on a page. */
export function evidenceSpan(v: Verdict, passage: Passage | undefined): EvidenceSpan | undefined {
  const e = v.evidence;
  if (!e || e.start === undefined || e.end === undefined) return undefined;
  const doc = passage && evidenceInDocument(e, passage);
  return { passageId: e.passageId, start: e.start, end: e.end, ...(doc ? { docStart: doc.start, docEnd: doc.end } : {}), ...(e.page ? { page: e.page } : {}) };
}

/** A generate.answer call and what the pipeline finally answered. */
export interface AnswerExample {
  question: Question;
  passages: Passage[];
  /** The messages the generator saw (rendered from the node's prompt, params and inputs). */
  prompt: ChatMessage[];
  draft: Answer;
  /** The run's last Answer (after feedback, post-hoc citation, …); the draft when nothing followed. */
  final: Answer;
  finalNodeId: string;
  /** A user's corrected answer for this run (`citeflow correct`), which wins over `final`. */
  corrected?: string;
  /** The answer a labelled corpus gives for the run's claim from these passages (`--labels`; gold.ts), which wins over the model's. */
  gold?: string;
  /** A judge.pairwise node's choice between two answers of the run, when the graph has one. */
  judged?: { preferred: string; rejected: string; decision: string };
  /** A judge.rubric node's scores (1–5), when the graph has one; null when it was skipped. */
  rubric?: { organisation: number; factuality: number } | null;
  provenance: Provenance;
}

export interface NliExample {
  premise: string;
  hypothesis: string;
  label: "SUPPORT" | "NO_EVIDENCE" | "CONTRADICT";
  /** The model's label when a user corrected it. */
  originalLabel?: string;
  /** "gold": from a labelled corpus (`--labels`), not from a model's verdict. */
  source?: "gold";
  /** The run's question: the rows of one question stay on one side of the split. */
  question?: string;
  provenance: Provenance;
}

/** One model call inside OpenScholar's self-feedback loop, as it was traced. */
export interface LoopCallExample {
  type: "feedback_generation" | "feedback_incorporation";
  messages: ChatMessage[];
  response: string;
  question: string;
  provenance: Provenance;
}

/** A passage judged for a query: by an LLM rating (1–5), by qrels, or by a user's correction. */
export interface RelevanceExample {
  query: string;
  passage: Passage;
  relevant: boolean;
  /** The LLM's 1–5 rating, when that is the source. */
  rating?: number;
  source: "llm" | "qrels" | "correction";
  provenance: Provenance;
}

const RETRIEVERS = new Set(["retrieve.lexical", "retrieve.dense", "retrieve.hybrid", "search.semantic-scholar", "search.core", "search.pubmed", "search.arxiv"]);

/** The run's pairwise and rubric judgements (first judge node of each kind that finished). */
function judgements(view: RunView, order: string[], byId: Map<string, NodeRecord>): Pick<AnswerExample, "judged" | "rubric"> {
  const out: Pick<AnswerExample, "judged" | "rubric"> = {};
  const done = (type: string) => order.find((id) => byId.get(id)?.type === type && byId.get(id)?.status === "done");
  const pw = done("judge.pairwise");
  if (pw) {
    const decision = String(view.output(pw, "decision"));
    if (decision === "a" || decision === "b") out.judged = { preferred: (view.output(pw, "preferred") as Answer).text, rejected: (view.output(pw, "rejected") as Answer).text, decision };
  }
  const rb = done("judge.rubric");
  if (rb) out.rubric = (view.output(rb, "scores") as AnswerExample["rubric"]) ?? null;
  return out;
}

const ANSWER_PORTS: Record<string, string> = { "generate.answer": "answer", "refine.edit": "answer", "loop.self-feedback": "answer", "cite.posthoc": "answer", "answer.compose": "answer" };

/** The rows a run gives, by kind. */
export interface RunExamples {
  answers: AnswerExample[];
  nli: NliExample[];
  loop: LoopCallExample[];
  relevance: RelevanceExample[];
  /** Structured nodes' model calls (calls.ts). */
  calls: CallExample[];
  /** Self-feedback loops taken from the cache (they carry no trace of their model calls). */
  loopsFromCache: number;
}

/**
 * The examples of every finished (status ok) run in the store, oldest first, handed to `each` a run
 * at a time, so an export holds one run's examples at once however many runs the store has.
 */
export function forEachRunExamples(
  store: RunStore,
  services: Pick<Services, "prompt">,
  each: (run: RunExamples) => void,
  runIds?: string[],
  qrels?: QrelsMap,
  gold?: GoldLabels,
): { runs: number; skipped: string[]; correctionProblems: CorrectionProblem[]; loopsFromCache: number } {
  const skipped: string[] = [];
  const correctionProblems: CorrectionProblem[] = [];
  const ids =
    runIds ??
    store
      .listRuns(skipped)
      .map((r) => r.runId)
      .reverse();
  let runs = 0;
  let loopsFromCache = 0;
  for (const id of ids) {
    // A run is read whole before any of its rows count: one that cannot be read (a missing,
    // changed or garbled blob; a broken run file) is left out with the reason, and the rest export.
    let rows: RunExamples;
    let read: ReturnType<RunStore["readCorrections"]>;
    try {
      const record = store.readRun(id);
      if (record.status !== "ok") {
        skipped.push(`${id} (${record.status})`);
        continue;
      }
      read = store.readCorrections(id);
      rows = collectRun(store, services, record, read.corrections, qrels, gold);
    } catch (e) {
      skipped.push(`${id} (${(e as Error).message})`);
      continue;
    }
    each(rows);
    loopsFromCache += rows.loopsFromCache;
    correctionProblems.push(...read.problems);
    runs++;
  }
  return { runs, skipped, correctionProblems, loopsFromCache };
}

/** The rows of one finished run. */
function collectRun(store: RunStore, services: Pick<Services, "prompt">, record: RunRecord, corrections: StoredCorrection[], qrels: QrelsMap | undefined, gold: GoldLabels | undefined): RunExamples {
  const out: RunExamples = { answers: [], nli: [], loop: [], relevance: [], calls: [], loopsFromCache: 0 };
  const { answers, nli, loop, relevance, calls } = out;
  const view = new RunView(store, record);
  const order = record.graph.nodes.map((n) => n.id);
  const byId = new Map(record.nodes.map((n) => [n.id, n]));
  const answerNodes = order.filter((id) => ANSWER_PORTS[byId.get(id)?.type ?? ""] && byId.get(id)?.outputHashes);
  const finalNodeId = answerNodes.at(-1);
  // The latest answer correction on any answer node of the run is the corrected final answer.
  const answerFix = corrections.filter((c) => c.kind === "answer").at(-1);
  const judged = new Map<string, RelevanceExample>();
  const judge = (e: RelevanceExample) => judged.set(`${e.provenance.nodeId}\0${e.passage.id}`, e);
  let qrelsUsed = false;
  let goldUsed = false;
  for (const nodeId of order) {
    const n = byId.get(nodeId);
    if (!n || n.status !== "done") continue;
    if (n.type === "rate.relevance") {
      const q = view.input(nodeId, "question") as Question;
      for (const p of (view.output(nodeId, "passages") as Passage[]) ?? []) {
        const rating = p.scores.relevance;
        // OpenScholar's reranker labels: 4–5 positive, 1–2 negative, 3 left out.
        if (rating === undefined || rating === 3) continue;
        judge({ query: q.text, passage: p, relevant: rating >= 4, rating, source: "llm", provenance: view.provenance(nodeId, [p], {}) });
      }
    }
    if (qrels && !qrelsUsed && RETRIEVERS.has(n.type)) {
      const q = (view.input(nodeId, "question") ?? view.input(nodeId, "query")) as { id?: string; questionId?: string; text: string } | undefined;
      const rel = q && qrels.get(String(q.id ?? q.questionId));
      if (q && rel) {
        qrelsUsed = true; // the first retriever's list: its non-relevant passages are hard negatives
        for (const p of (view.output(nodeId, "passages") as Passage[]) ?? []) {
          const doc = docIdOf(p.id);
          judge({ query: q.text, passage: p, relevant: (rel.get(doc) ?? 0) > 0, source: "qrels", provenance: view.provenance(nodeId, [p], {}) });
        }
      }
    }
    if (gold && !goldUsed && RETRIEVERS.has(n.type)) {
      // The first retriever's list: the labelled claim's gold pairs, with its retrieved non-evidence documents as hard negatives.
      const q = (view.input(nodeId, "question") ?? view.input(nodeId, "query")) as { id?: string; questionId?: string } | undefined;
      const claimId = q && String(q.id ?? q.questionId);
      if (claimId && gold.claims.has(claimId)) {
        goldUsed = true;
        const passages = (view.output(nodeId, "passages") as Passage[]) ?? [];
        const docs = [...new Set(passages.map((p) => docIdOf(p.id)))];
        for (const g of goldPairs(gold, claimId, docs))
          nli.push({
            premise: g.premise,
            hypothesis: g.hypothesis,
            label: g.label,
            source: "gold",
            ...(view.question !== undefined ? { question: view.question } : {}),
            provenance: { ...view.provenance(nodeId, passages.filter((p) => p.id.startsWith(`${g.docId}#`)).slice(0, 1), {}), docIds: [g.docId], sources: ["labels"] },
          });
      }
    }
    if (n.type === "generate.answer" && finalNodeId) {
      const question = view.input(nodeId, "question") as Question;
      const passages = view.input(nodeId, "passages") as Passage[];
      const p = n.params as { prompt: string; system: string; citationBase: 0 | 1 };
      const models: Record<string, string> = {};
      const gen = view.modelOf(n);
      if (gen) models.generator = gen;
      const goldText = gold ? goldAnswer(gold, question.id, passages, p.citationBase) : undefined;
      answers.push({
        question,
        passages,
        prompt: answerMessages(services, question, passages, p),
        draft: view.output(nodeId, "answer") as Answer,
        final: view.output(finalNodeId, ANSWER_PORTS[byId.get(finalNodeId)!.type]!) as Answer,
        finalNodeId,
        ...(answerFix?.kind === "answer" ? { corrected: answerFix.text } : {}),
        ...(goldText !== undefined ? { gold: goldText } : {}),
        ...judgements(view, order, byId),
        provenance: {
          ...view.provenance(nodeId, passages, models),
          ...(goldText !== undefined ? { sources: ["labels"] } : {}),
          ...(answerFix ? { corrections: [answerFix.id] } : {}),
        },
      });
    }
    if (n.type === "loop.self-feedback") {
      if (n.cache === "hit") out.loopsFromCache++;
      const question = (view.input(nodeId, "question") as Question | undefined)?.text ?? "";
      const passages = (view.output(nodeId, "passages") as Passage[] | undefined) ?? [];
      const call = (type: LoopCallExample["type"], span: SpanRecord | undefined) => {
        const d = span && view.spanData(span);
        if (!d || !Array.isArray(d.messages) || typeof d.response !== "string") return;
        loop.push({
          type,
          messages: d.messages as ChatMessage[],
          response: d.response,
          question,
          provenance: view.provenance(nodeId, passages, typeof d.model === "string" ? { generator: d.model } : {}),
        });
      };
      for (const s of n.spans) {
        if (s.name === "feedback") call("feedback_generation", s);
        // Only edits the loop kept (OpenScholar's length-ratio filter) teach incorporation.
        else if (/^feedback \d+$/.test(s.name) && view.spanData(s)?.kept === true)
          call(
            "feedback_incorporation",
            s.children.find((c) => c.name === "edit"),
          );
      }
    }
    if (CALL_NODES.has(n.type)) calls.push(...nodeCalls({ view, node: n, corrections, qrels, gold }));
    if (n.type === "verify.nli") {
      const verdicts = view.output(nodeId, "verdicts") as Verdict[];
      const claims = (view.input(nodeId, "claims") as Claim[] | undefined) ?? [];
      const passages = (view.input(nodeId, "passages") as Passage[] | undefined) ?? [];
      const model = String((n.params as { model?: string }).model || view.modelOf(n) || "");
      for (const original of verdicts) {
        const fix = corrections
          .filter((c) => c.kind === "verdict" && c.nodeId === nodeId && c.claimId === original.claimId && (c.passageId === undefined || c.passageId === original.passageId))
          .at(-1);
        const v = fix?.kind === "verdict" ? { ...original, label: fix.label } : original;
        if (v.label === "NO_REFERENCE" || v.label === "CANNOT_TELL") continue; // nothing to pair the claim with, or no label to teach
        const claim = claims.find((c) => c.id === v.claimId);
        const passage = passages.find((p) => p.id === v.passageId);
        const premise = v.evidence?.sentence ?? passage?.text;
        if (!claim || !premise) continue;
        const span = evidenceSpan(v, passage);
        const prov = { ...view.provenance(nodeId, passage ? [passage] : [], model ? { nli: model } : {}), ...(span ? { evidence: span } : {}) };
        nli.push({
          premise,
          hypothesis: claim.text,
          label: v.label,
          ...(fix ? { originalLabel: original.label } : {}),
          ...(view.question !== undefined ? { question: view.question } : {}),
          provenance: fix ? { ...prov, corrections: [fix.id] } : prov,
        });
      }
    }
  }
  // A user's relevance judgement wins over the LLM's and the qrels'.
  for (const c of corrections) {
    if (c.kind !== "relevance") continue;
    const n = byId.get(c.nodeId);
    const lists = n?.outputHashes ? (Object.values(store.outputOf(n) as Record<string, unknown>).filter(Array.isArray) as Passage[][]) : [];
    const p = lists.flat().find((x) => x.id === c.passageId);
    const q = (view.input(c.nodeId, "question") ?? view.input(c.nodeId, "query")) as { text: string } | undefined;
    if (!p || !q) continue;
    judge({ query: q.text, passage: p, relevant: c.relevant, source: "correction", provenance: { ...view.provenance(c.nodeId, [p], {}), corrections: [c.id] } });
  }
  relevance.push(...judged.values());
  return out;
}
