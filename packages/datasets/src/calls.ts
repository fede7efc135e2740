import { docIdOf, type Claim, type Passage, type Question } from "@citeflow/core";
import type { ChatMessage } from "@citeflow/models";
import { CLAIM_MAX_CHARS, sufficiencyAnswers } from "@citeflow/nodes";
import type { NodeRecord, SpanRecord, StoredCorrection } from "@citeflow/runstore";
import type { Provenance, QrelsMap } from "./provenance.js";
import { goldRationales, goldTrue, type GoldLabels } from "./gold.js";
import type { RunView } from "./run-view.js";

/**
 * One model call of a node whose answer has a structure (a verdict, claims, a sufficiency check, a
 * rating, a search query), as it was traced, and what it should have answered when that is known.
 */
export interface CallExample {
  messages: ChatMessage[];
  response: string;
  /**
   * The answer it should have given, in the form it was asked for (JSON under a schema, else the
   * text the prompt asks for): from a user's correction, else from the labelled corpus (`--labels`)
   * or the qrels (`--qrels`). Absent when neither knows: the row then teaches the response.
   */
  target?: string;
  question: string;
  provenance: Provenance;
}

/** The nodes whose calls export (each call is a span that traced its messages and response). */
export const CALL_NODES = new Set(["verify.llm", "claims.extract", "check.sufficiency", "rate.relevance", "query.enrich"]);

/** What a node's calls are read with: the run, its corrections, and the labels the export was given. */
interface CallContext {
  view: RunView;
  node: NodeRecord;
  corrections: StoredCorrection[];
  qrels: QrelsMap | undefined;
  gold: GoldLabels | undefined;
}

/** A call's messages and response, when its span traced them (none for a node taken from the cache). */
function traced(view: RunView, span: SpanRecord | undefined): { messages: ChatMessage[]; response: string; json: boolean; model?: string } | undefined {
  const d = span && view.spanData(span);
  if (!d || !Array.isArray(d.messages) || typeof d.response !== "string") return undefined;
  return { messages: d.messages as ChatMessage[], response: d.response, json: d.jsonSchema !== undefined, ...(typeof d.model === "string" ? { model: d.model } : {}) };
}

/** The target in the form the call was asked for: JSON (keys in the schema's order) under a grammar, else the prompt's text form. */
const form = (json: boolean, value: Record<string, unknown>, text: string) => (json ? JSON.stringify(value) : text);

/** claims.extract's answer from a labelled corpus: the claim's rationale sentences the passages show, each with its passage's number. */
function claimsTarget(gold: GoldLabels, question: Question, passages: Passage[], json: boolean): string | undefined {
  const found = goldRationales(gold, question.id, passages);
  if (!found) return undefined;
  if (json) {
    const claims = found.filter((r) => r.sentence.length <= CLAIM_MAX_CHARS).map((r) => ({ passage: r.passage + 1, claim: r.sentence }));
    return JSON.stringify({ claims: claims.slice(0, Math.max(passages.length, 1) * 2) });
  }
  return found.length ? found.map((r) => `[${r.passage + 1}] ${r.sentence}`).join("\n") : "None.";
}

function row(
  c: CallContext,
  call: NonNullable<ReturnType<typeof traced>>,
  question: string,
  passages: Passage[],
  target: string | undefined,
  from: "labels" | StoredCorrection | undefined,
): CallExample {
  // verify.llm's model is the run's judge; the others' write text as a generator does.
  const role = c.node.type === "verify.llm" ? "judge" : "generator";
  const prov = c.view.provenance(c.node.id, passages, call.model ? { [role]: call.model } : {});
  return {
    messages: call.messages,
    response: call.response,
    ...(target !== undefined ? { target } : {}),
    question,
    provenance: from === "labels" ? { ...prov, sources: ["labels"] } : from ? { ...prov, corrections: [from.id] } : prov,
  };
}

/** The calls of one finished node of a CALL_NODES type, with their targets. */
export function nodeCalls(c: CallContext): CallExample[] {
  const { view, node, gold } = c;
  const id = node.id;
  const spans = (name: string) => node.spans.filter((s) => s.name === name);
  const out: CallExample[] = [];
  const question = view.input(id, "question") as Question | undefined;
  const qText = view.question ?? question?.text ?? "";
  switch (node.type) {
    case "verify.llm": {
      const claims = (view.input(id, "claims") as Claim[] | undefined) ?? [];
      const passages = (view.input(id, "passages") as Passage[] | undefined) ?? [];
      // One "judge" call per claim, in the claims' order.
      spans("judge").forEach((s, i) => {
        const call = traced(view, s);
        const claim = claims[i];
        if (!call || !claim) return;
        const fix = c.corrections.filter((x) => x.kind === "verdict" && x.nodeId === id && x.claimId === claim.id).at(-1);
        // The labels know a claim's truth only when the claim is a labelled claim itself (SciFact's binary setting).
        const labelled = gold?.claims.get(claim.id)?.text === claim.text.trim() ? goldTrue(gold!, claim.id) : undefined;
        const truth = fix?.kind === "verdict" ? fix.label === "SUPPORT" : labelled;
        const cited = passages.filter((p) => claim.passageIds.includes(p.id));
        const target = truth === undefined ? undefined : form(call.json, { answer: String(truth) }, String(truth));
        out.push(row(c, call, view.question ?? claim.text, cited.length ? cited : passages, target, fix ?? (labelled !== undefined ? "labels" : undefined)));
      });
      break;
    }
    case "claims.extract": {
      const passages = (view.input(id, "passages") as Passage[] | undefined) ?? [];
      const call = traced(view, spans("model")[0]);
      if (!call || !question) break;
      const target = gold && claimsTarget(gold, question, passages, call.json);
      out.push(row(c, call, qText, passages, target, target !== undefined ? "labels" : undefined));
      break;
    }
    case "check.sufficiency": {
      const claims = (view.input(id, "claims") as Claim[] | undefined) ?? [];
      const passages = (view.input(id, "passages") as Passage[] | undefined) ?? [];
      const call = traced(view, spans("check")[0]);
      if (!call || !question) break;
      // Enough when a passage the claims cite shows a rationale of the labelled claim; else search the question itself.
      const cited = passages.filter((p) => claims.some((x) => x.passageIds.includes(p.id)));
      const found = gold && goldRationales(gold, question.id, cited);
      const answers = sufficiencyAnswers(question.text);
      const target = found && (found.length ? (call.json ? answers.enough : "Answer: No.") : call.json ? answers.notEnough : `Answer: ${question.text}`);
      out.push(row(c, call, qText, cited, target, target !== undefined ? "labels" : undefined));
      // The second hop's claims, from the passages it found.
      const hop = spans("second hop")[0];
      const second = traced(
        view,
        hop?.children.find((s) => s.name === "claims"),
      );
      if (hop && second) {
        const added = (view.spanData(hop)?.added as string[] | undefined) ?? [];
        const all = (view.output(id, "passages") as Passage[] | undefined) ?? [];
        const found2 = added.map((pid) => all.find((p) => p.id === pid)).filter((p): p is Passage => !!p);
        const t2 = gold && claimsTarget(gold, question, found2, second.json);
        out.push(row(c, second, qText, found2, t2, t2 !== undefined ? "labels" : undefined));
      }
      break;
    }
    case "rate.relevance": {
      const passages = (view.input(id, "passages") as Passage[] | undefined) ?? [];
      const rel = question && c.qrels?.get(String(question.id));
      const claim = question && gold?.claims.get(String(question.id));
      // One "rate" call per passage, in the passages' order: 5 when relevant, 1 when not.
      spans("rate").forEach((s, i) => {
        const call = traced(view, s);
        const p = passages[i];
        if (!call || !p) return;
        const fix = c.corrections.filter((x) => x.kind === "relevance" && x.nodeId === id && x.passageId === p.id).at(-1);
        const doc = docIdOf(p.id);
        const relevant = fix?.kind === "relevance" ? fix.relevant : rel ? (rel.get(doc) ?? 0) > 0 : claim ? claim.evidence.has(doc) : undefined;
        const rating = relevant ? 5 : 1;
        const target = relevant === undefined ? undefined : form(call.json, { reasoning: "", rating }, `Rating: ${rating}`);
        out.push(row(c, call, qText, [p], target, fix ?? (relevant !== undefined ? "labels" : undefined)));
      });
      break;
    }
    case "query.enrich": {
      // No label says what a search query should have been: the row teaches the response.
      const call = traced(view, spans("model")[0]);
      if (call) out.push(row(c, call, qText, [], undefined, undefined));
      break;
    }
  }
  return out;
}
