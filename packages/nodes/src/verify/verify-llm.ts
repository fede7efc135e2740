import { calibratedVerdict, closestSentences, compileTemplate, defineNode, type Verdict, type VerdictCalibration } from "@citeflow/core";
import { JUDGE_ADAPTER, usesAdapter } from "@citeflow/models";
import { z } from "zod";
import { callChat, chatAndPrompt, chatFor, llmParams, noChatReason } from "../shared/llm.js";
import { promptParam } from "../shared/prompts.js";
import { readTrueFalse, trueFalseSchema } from "../shared/structured.js";
import { thresholdText, twoWay } from "../shared/two-way.js";
import { bandParam, withBand } from "../shared/calibration.js";

/** The first "true" or "false" in a reply. */
export function parseTrueFalse(text: string): boolean {
  const m = /\b(true|false)\b/i.exec(text);
  if (!m) throw new Error(`true/false judgement did not parse: expected "true" or "false", got ${JSON.stringify(text.slice(0, 120))}`);
  return m[1]!.toLowerCase() === "true";
}

/** The two answers an in-process judge scores: the schema's two answers, as its grammar writes them. */
export const TRUE_FALSE = ['{"answer":"true"}', '{"answer":"false"}'];

/**
 * A verdict from the log-probabilities of "true" and "false": true above the threshold, with P(true) of the two.
 * With a calibration for the model, the verdict is the calibrated one (CANNOT_TELL inside its band), and the
 * threshold's answer is its forced choice.
 */
function scored(claimId: string, logprobs: number[], threshold: number, calibration: VerdictCalibration | undefined): Verdict {
  const { yes, pYes } = twoWay(logprobs, threshold);
  const forced = yes ? "SUPPORT" : "CONTRADICT";
  const v: Verdict = { claimId, label: forced, probabilities: { SUPPORT: pYes, CONTRADICT: 1 - pYes } };
  if (!calibration) return v;
  const c = calibratedVerdict(claimId, logprobs[0]! - logprobs[1]!, calibration);
  return { ...v, label: c.label, calibration: { ...c.calibration!, forced } };
}

/** A verdict from a generated answer: all its weight on what it said. */
const answered = (claimId: string, isTrue: boolean): Verdict => ({ claimId, label: isTrue ? "SUPPORT" : "CONTRADICT", probabilities: isTrue ? { SUPPORT: 1 } : { CONTRADICT: 1 } });

/**
 * The least log P(true) − log P(false) at which an in-process judge says true, unless the node's
 * `threshold` says otherwise: for Gemma 3 270M alone, and any model without a threshold of its own.
 * Chosen on the dev split's 100 claims (bench/README.md, "The judge, scored"): at 0 Gemma said
 * true for all 100; here it scores 0.710 there (always true: 0.660).
 */
export const JUDGE_THRESHOLD = 0.74;

/**
 * The same for Citeflow's judge adapter (JUDGE_ADAPTER, verify.llm's default model when installed),
 * chosen the same way: 0.760 on the dev split's 100 claims.
 */
export const JUDGE_ADAPTER_THRESHOLD = -0.41;

/** The default threshold for the model a judge runs (its id: `<base>+<adapter>` with an adapter, named by id or by its file's path). */
export function judgeThreshold(modelId: string): number {
  return usesAdapter(modelId, JUDGE_ADAPTER) ? JUDGE_ADAPTER_THRESHOLD : JUDGE_THRESHOLD;
}

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "verify.llm";
export const verifyLlm = defineNode({
  type: TYPE,
  version: 3,
  title: "Verify claims (LLM, true/false)",
  family: "verify",
  description:
    "OpenScholar's SciFact protocol: a language model reads the passages each claim cites (all of them when it cites none) and answers whether the claim is true or false → SUPPORT or CONTRADICT, one verdict per claim. An in-process model scores both answers: the verdict is true when log P(true) − log P(false) exceeds `threshold` (unset: the one chosen for the model), and carries those probabilities; with a calibration chosen for the model, it says CANNOT_TELL inside the band and carries its calibrated confidence.",
  inputs: { claims: { type: "Claim[]" }, passages: { type: "Passage[]" } },
  outputs: { verdicts: { type: "Verdict[]", description: "One per claim" } },
  params: z.object({
    ...llmParams,
    maxTokens: z.number().int().positive().default(8),
    prompt: promptParam("openscholar.scifact.v1", "Prompt over claim and passages"),
    sentences: z.number().int().positive().optional().describe("Each passage cut to its this many sentences most like the claim (BM25), in their order; unset: whole passages"),
    band: bandParam,
    threshold: z
      .number()
      .optional()
      .describe(`${thresholdText("true", "false")}. Unset: the one chosen for the model (${JUDGE_ADAPTER_THRESHOLD} for Citeflow's judge adapter, else ${JUDGE_THRESHOLD})`),
  }),
  fingerprint: (p, s) => ({ ...chatAndPrompt(TYPE)(p, s), calibration: s.judgeCalibration(p, TYPE) ?? null, band: p.band ?? null }),
  async run(inputs, p, ctx) {
    const claims = inputs.claims;
    const all = inputs.passages;
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) throw new Error(`verify.llm needs a chat model: ${noChatReason(ctx.services, p, TYPE)}`);
    const template = compileTemplate(ctx.services.prompt(p.prompt));
    // An in-process judge's scores go through its adapter's calibration (calibration.json beside it), when it has one.
    const calibration = withBand(ctx.services.judgeCalibration(p, TYPE), chat.id, p.band);
    const verdicts: Verdict[] = [];
    for (const [i, claim] of claims.entries()) {
      const cited = all.filter((x) => claim.passageIds.includes(x.id));
      const read = (cited.length ? cited : all).map((x) => (p.sentences ? { ...x, text: closestSentences(x.text, claim.text, p.sentences) } : x));
      const messages = [{ role: "user" as const, content: template.render({ claim, passages: read }) }];
      const r = await callChat(ctx, chat, messages, p, "judge", { jsonSchema: trueFalseSchema, ...(chat.constrains ? { choices: TRUE_FALSE } : {}) });
      verdicts.push(
        r.choiceLogprobs
          ? scored(claim.id, r.choiceLogprobs, p.threshold ?? judgeThreshold(chat.id), calibration)
          : answered(claim.id, r.structured !== undefined ? readTrueFalse(r.structured) : parseTrueFalse(r.text)),
      );
      ctx.progress(i + 1, claims.length);
    }
    return { verdicts };
  },
});
