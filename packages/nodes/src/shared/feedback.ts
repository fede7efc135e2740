import { compileTemplate, shorten, toAnswer, type Answer, type Feedback, type NodeContext, type Passage, type Question } from "@citeflow/core";
import type { ChatMessage, ChatModel } from "@citeflow/models";
import { callChat, type LlmParams as LlmSettings } from "./llm.js";
import { feedbackSchema, readFeedback } from "./structured.js";

/**
 * Reads OpenScholar-style feedback: items "Feedback: … Question: …" (the question optional, or
 * "none"). A response with no "Feedback:" at all is an error, not silently an empty list.
 */
export function parseFeedback(text: string, maxItems: number): Feedback[] {
  const blocks = text.split(/^\s*(?:\d+[.)]\s*)?\**feedback\**\s*:/gim).slice(1);
  if (blocks.length === 0) throw new Error(`feedback did not parse: expected items "Feedback: … Question: …", got ${JSON.stringify(shorten(text, 160))}`);
  return blocks.slice(0, maxItems).flatMap((b) => {
    const [fb, q] = b.split(/^\s*\**question\**\s*:/im);
    const feedback = fb!.trim();
    const question = q?.trim().split("\n")[0]!.trim();
    if (!feedback) return [];
    return [{ text: feedback, ...(question && !/^(none|n\/a|-)\.?$/i.test(question) ? { question } : {}) }];
  });
}

/** {{@number}} counts from 1; OpenScholar numbers references from 0. */
function render(ctx: NodeContext, ref: string, base: 0 | 1, scope: Record<string, unknown>): string {
  const template = ctx.services.prompt(ref);
  return compileTemplate(base === 0 ? template.replaceAll("{{@number}}", "{{@index}}") : template).render(scope);
}

/** generate.answer's system message, then the prompt: the answer, its feedback and its edits start alike. */
const turn = (system: string, prompt: string): ChatMessage[] => [
  { role: "system", content: system },
  { role: "user", content: prompt },
];

export async function requestFeedback(
  ctx: NodeContext,
  chat: ChatModel,
  p: LlmSettings & { system: string; feedbackPrompt: string; maxItems: number; citationBase: 0 | 1 },
  question: Question,
  answer: Answer,
  passages: Passage[],
): Promise<Feedback[]> {
  const prompt = render(ctx, p.feedbackPrompt, p.citationBase, { question, answer, passages, maxItems: p.maxItems });
  const r = await callChat(ctx, chat, turn(p.system, prompt), p, "feedback", { jsonSchema: feedbackSchema(p.maxItems) });
  return r.structured !== undefined ? readFeedback(r.structured, p.maxItems) : parseFeedback(r.text, p.maxItems);
}

/**
 * One edit for one feedback item. OpenScholar keeps an edit only when it does not shrink the
 * answer much: new length / old length must exceed `minRatio` (0.9).
 */
export async function editOnce(
  ctx: NodeContext,
  chat: ChatModel,
  p: LlmSettings & { system: string; editPrompt: string; minRatio: number; citationBase: 0 | 1 },
  question: Question,
  answer: Answer,
  feedback: Feedback,
  passages: Passage[],
): Promise<{ answer: Answer; kept: boolean; ratio: number }> {
  const r = await callChat(ctx, chat, turn(p.system, render(ctx, p.editPrompt, p.citationBase, { question, answer, feedback, passages })), p, "edit");
  const text = r.text.trim();
  const ratio = answer.text.length === 0 ? Infinity : text.length / answer.text.length;
  const kept = text.length > 0 && ratio > p.minRatio;
  ctx.log("info", `edit for "${feedback.text.slice(0, 60)}": ${kept ? "kept" : "discarded"} (length ratio ${ratio.toFixed(2)})`);
  return { answer: kept ? toAnswer(text, passages, { base: p.citationBase }) : answer, kept, ratio };
}
