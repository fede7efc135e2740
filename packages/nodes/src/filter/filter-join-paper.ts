import { defineNode } from "@citeflow/core";
import { joinPapers } from "@citeflow/retrieval";
import { z } from "zod";

export const filterJoinPaper = defineNode({
  type: "filter.join-paper",
  version: 2,
  title: "One passage per paper",
  family: "filter",
  description:
    "Joins each paper's passages into one, in the paper's own order, where the paper first appears (Verif.ai answers from whole abstracts; a store chunked in windows returns pieces of them). The joined passage keeps its first chunk's id and lists the chunks it holds in metadata.chunks; chunks not given are marked by \" … \".",
  inputs: { passages: { type: "Passage[]" } },
  outputs: { passages: { type: "Passage[]" } },
  params: z.object({}),
  async run(inputs) {
    return { passages: joinPapers(inputs.passages) };
  },
});
