import { z } from "zod";

/**
 * A yes/no answer an in-process model scored rather than wrote: it scores the two answers (their
 * log-probabilities where they part, `choices` in ChatOptions) and says yes when
 * log P(yes) − log P(no) is above the node's threshold. verify.llm and check.sufficiency decide so.
 */
export function twoWay([yes, no]: number[], threshold: number): { yes: boolean; pYes: number } {
  const margin = yes! - no!;
  return { yes: margin > threshold, pYes: 1 / (1 + Math.exp(-margin)) };
}

/** What the threshold param of a node that decides by twoWay means: `yes` names its yes answer. */
export const thresholdText = (yes: string, no: string) =>
  `In-process models: ${yes} when log P(${yes}) − log P(${no}) is above this (natural log; 0: the likelier answer). Choose it on examples you do not report on`;

/** The threshold param of a node that decides by twoWay, with its default. */
export const thresholdParam = (yes: string, no: string, dflt: number) => z.number().default(dflt).describe(thresholdText(yes, no));
