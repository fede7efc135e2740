import { defineNode } from "@citeflow/core";
import { perPaper } from "@citeflow/retrieval";
import { z } from "zod";

export const filterPerPaper = defineNode({
  type: "filter.per-paper",
  version: 1,
  title: "At most N per paper",
  family: "filter",
  description: "Keeps at most N passages from each paper (docId), in the order given (OpenScholar uses 3).",
  inputs: { passages: { type: "Passage[]" } },
  outputs: { passages: { type: "Passage[]" } },
  params: z.object({ max: z.number().int().positive().default(3).describe("Passages per paper") }),
  async run(inputs, params) {
    return { passages: perPaper(inputs.passages, params.max) };
  },
});
