import { compileTemplate, defineNode, type Claim, type NodeContext, type Passage, type Question } from "@citeflow/core";
import type { ChatModel } from "@citeflow/models";
import { indexText } from "@citeflow/retrieval";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { modelParam, storeParam } from "../shared/params.js";
import { parseClaimLines } from "./claims-extract.js";
import { callChat, chatFor, llmParams, type LlmParams } from "../shared/llm.js";
import { claimsSchema, quoteParam, readClaims, readSufficiency, secondHopQuery, sufficiencyAnswers, sufficiencySchema } from "../shared/structured.js";
import { thresholdParam, twoWay } from "../shared/two-way.js";

/** The last "Answer: …" line: "No." means enough; anything else is the next search query. */
export function parseSufficiency(text: string): { sufficient: boolean; query?: string } {
  const lines = [...text.matchAll(/^\s*\**answer\**\s*:\s*(.+?)\s*$/gim)];
  const last = lines
    .at(-1)?.[1]
    ?.replace(/^["']|["']$/g, "")
    .trim();
  if (!last) throw new Error(`sufficiency check did not parse: expected a final line "Answer: No." or "Answer: <query>", got ${JSON.stringify(text.slice(-160))}`);
  return /^no\.?$/i.test(last) ? { sufficient: true } : { sufficient: false, query: last };
}

/** The reranker's score (cosine, Citeflow's reranker) at which a passage read is taken to answer the question: chosen on the dev split's claims (bench/README.md). */
const MIN_SCORE = 0.48;

type Verdict = { sufficient: boolean; query?: string };
/** A decision with no query named: not enough searches the question. */
const decided = (enough: boolean, question: Question): Verdict => (enough ? { sufficient: true } : { sufficient: false, query: secondHopQuery(question.text) });
type Params = LlmParams & { prompt: string; threshold: number; reranker: string; minScore: number };

/** The language model's check: written (a server's model), or the two answers scored (in-process). */
async function byModel(ctx: NodeContext, chat: ChatModel, question: Question, claims: Claim[], p: Params): Promise<Verdict> {
  const answers = sufficiencyAnswers(question.text);
  const check = await callChat(ctx, chat, [{ role: "user", content: compileTemplate(ctx.services.prompt(p.prompt)).render({ question, claims }) }], p, "check", {
    jsonSchema: sufficiencySchema,
    ...(chat.constrains ? { choices: [answers.enough, answers.notEnough] } : {}),
  });
  if (check.choiceLogprobs) return decided(twoWay(check.choiceLogprobs, p.threshold).yes, question);
  return check.structured !== undefined ? readSufficiency(check.structured) : parseSufficiency(check.text);
}

/** The reranker's check: enough when a passage read scores at least minScore against the question; else search the question. */
async function byReranker(ctx: NodeContext, question: Question, passages: Passage[], p: Params): Promise<Verdict> {
  const id = ctx.services.modelId("reranker", p.reranker);
  const model = await ctx.services.reranker({ id, modelsDir: "", dtype: "fp32" });
  const best = await ctx.span("check", async (s) => {
    s.set("model", id);
    const scores = passages.length ? await model.score(question.text, passages.map(indexText), { signal: ctx.signal }) : [];
    s.set("scores", scores);
    return Math.max(-Infinity, ...scores);
  });
  return decided(best >= p.minScore, question);
}

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "check.sufficiency";
export const checkSufficiency = defineNode({
  type: TYPE,
  version: 4,
  title: "Enough? (second hop)",
  family: "generate",
  description:
    "arXivBot: a chain-of-thought check whether the claims answer the question; if not, its new query is searched (second hop) and the claims from what it finds are added. An in-process model scores the two answers instead of writing one (enough when log P(enough) − log P(not) exceeds `threshold`) and its second hop searches the question. With `judge: reranker` the reranker decides instead: enough when a passage read scores at least `minScore` against the question. Without an LLM the check is skipped and says so.",
  inputs: { question: { type: "Question" }, claims: { type: "Claim[]" }, passages: { type: "Passage[]" } },
  outputs: {
    claims: { type: "Claim[]", description: "The claims, plus those from the second hop" },
    passages: { type: "Passage[]", description: "The passages, plus those from the second hop" },
    decision: { type: "Text", description: '"sufficient", "second hop: <query>", or "skipped: no LLM configured"' },
  },
  params: z.object({
    ...llmParams,
    prompt: promptParam("arxivbot.sufficiency.v1", "Sufficiency prompt over question and claims"),
    claimsPrompt: promptParam("arxivbot.claims.v1", "Claim extraction prompt for the second hop"),
    quote: quoteParam,
    store: storeParam,
    k: z.number().int().positive().default(3).describe("Passages the second hop keeps (BM25 over the store)"),
    judge: z.enum(["llm", "reranker"]).default("llm").describe("Who decides whether the claims are enough: the language model (arXivBot's way), or the reranker's best score for the passages read"),
    threshold: thresholdParam("enough", "not", 0),
    reranker: modelParam("reranker", "With judge reranker: the reranker; empty: the configured one", { judge: "reranker" }),
    minScore: z.number().default(MIN_SCORE).describe("With judge reranker: enough when a passage read scores at least this against the question (the default was chosen on claims never reported on)"),
  }),
  fingerprint: async (p, s) => ({
    llm: s.chatIdentity(p, TYPE),
    prompts: [s.promptIdentity(p.prompt), s.promptIdentity(p.claimsPrompt)],
    ...(p.judge === "reranker" ? { reranker: await s.modelIdentity("reranker", s.modelId("reranker", p.reranker)) } : {}),
  }),
  async run(inputs, p, ctx) {
    const { question, claims, passages } = inputs;
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "sufficiency check skipped: no LLM configured");
      return { claims, passages, decision: "skipped: no LLM configured" };
    }
    const verdict = p.judge === "reranker" ? await byReranker(ctx, question, passages, p) : await byModel(ctx, chat, question, claims, p);
    if (verdict.sufficient) return { claims, passages, decision: "sufficient" };
    return ctx.span("second hop", async (s) => {
      s.set("query", verdict.query);
      const known = new Set(passages.map((x) => x.id));
      const found = (await (await ctx.services.store(p.store)).lexical(verdict.query!, p.k)).filter((x) => !known.has(x.id));
      s.set(
        "added",
        found.map((x) => x.id),
      );
      const all = [...passages, ...found];
      // Claims are numbered against the new passages only, then re-pointed into the merged list.
      const r = await callChat(ctx, chat, [{ role: "user", content: compileTemplate(ctx.services.prompt(p.claimsPrompt)).render({ question, passages: found }) }], p, "claims", {
        jsonSchema: claimsSchema(found, p.quote),
      });
      const more = !found.length ? [] : r.structured !== undefined ? readClaims(r.structured, found, claims.length + 1) : parseClaimLines(r.text, found, claims.length + 1);
      return { claims: [...claims, ...more], passages: all, decision: `second hop: ${verdict.query}` };
    });
  },
});
