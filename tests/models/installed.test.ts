/** Which models are installed, and of which kind: what a node's model field offers. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installedModels } from "@citeflow/models";
import { catalogueWithModels, createRegistry } from "@citeflow/nodes";
import { tempDir } from "../helpers.js";

const MODELS = process.env.CITEFLOW_MODELS!;

describe("installed models", () => {
  it("lists the models in the folders by id and kind, the first folder first", () => {
    const extra = tempDir();
    mkdirSync(join(extra, "citeflow", "my-reranker"), { recursive: true });
    writeFileSync(join(extra, "citeflow", "my-reranker", "config.json"), JSON.stringify({ model_type: "bert", citeflow_reranker: { kind: "encoder", lexicalWeight: 0.5 } }));
    mkdirSync(join(extra, "mnli"), { recursive: true });
    writeFileSync(join(extra, "mnli", "config.json"), JSON.stringify({ id2label: { 0: "entailment", 1: "neutral", 2: "contradiction" } }));
    mkdirSync(join(extra, "not-a-model"), { recursive: true });
    const found = installedModels([MODELS, extra, join(extra, "missing")]);
    const kinds = Object.fromEntries(found.map((m) => [m.id, m.kind]));
    expect(kinds).toMatchObject({ "pair-nli-scifact": "nli", "pair-rerank-scifact": "reranker", "static-use-en": "embedder", "citeflow/my-reranker": "reranker", mnli: "nli" });
    expect(kinds["not-a-model"]).toBeUndefined();

    // The catalogue's model params offer them by kind.
    const cat = catalogueWithModels(createRegistry(), [MODELS, extra]);
    const examples = (type: string) => ((cat.nodes.find((n) => n.type === type)!.params as { properties: Record<string, { examples?: string[] }> }).properties.model!.examples ?? []).sort();
    expect(examples("verify.nli")).toEqual(["mnli", "pair-nli-scifact"]);
    expect(examples("eval.citations")).toEqual(["mnli", "pair-nli-scifact"]);
    expect(examples("rerank.cross-encoder")).toEqual(["citeflow/my-reranker", "pair-rerank-scifact"]);
  });
});
