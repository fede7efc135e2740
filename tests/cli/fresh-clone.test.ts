/** A fresh clone needs nothing beside it: its data ships in data/, and nothing names a folder outside it. */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dataFolder, SHIPPED_DATA } from "@citeflow/retrieval";

const root = fileURLToPath(new URL("../..", import.meta.url));
const lines = (f: string) => readFileSync(f, "utf8").split("\n").filter(Boolean);

describe("a fresh clone", () => {
  it("names no folder beside the repository in any source, test, script, notebook or doc (only .ci/run may)", () => {
    const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
    const beside = /\.\.\/shared(\/(data|models)|["'` ]|$)/m;
    const naming = files.filter((f) => f !== ".ci/run" && existsSync(join(root, f)) && !/\.(onnx|png|pdf|gz)$/.test(f) && beside.test(readFileSync(join(root, f), "utf8")));
    expect(naming).toEqual([]);
  });

  it("reads SciFact and PubMedQA from the repository's data/ when $CITEFLOW_DATA is unset, and $CITEFLOW_DATA overrides it", () => {
    expect(dataFolder({})).toEqual({ dir: SHIPPED_DATA, from: "the data shipped with Citeflow" });
    expect(dataFolder({ CITEFLOW_DATA: "/elsewhere" })).toEqual({ dir: "/elsewhere", from: "$CITEFLOW_DATA" });
    const scifact = join(SHIPPED_DATA, "scifact");
    expect(lines(join(scifact, "corpus.jsonl"))).toHaveLength(5183);
    expect(lines(join(scifact, "claims_train.jsonl"))).toHaveLength(809);
    expect(lines(join(scifact, "qrels_train.tsv"))[0]).toMatch(/^query-id\tcorpus-id\tscore\r?$/);
    // The licences travel with the data.
    expect(readFileSync(join(scifact, "LICENSE.md"), "utf8")).toMatch(/CC BY 4\.0[\s\S]*ODC-By 1\.0/);
    expect(readFileSync(join(SHIPPED_DATA, "pubmedqa", "LICENSE"), "utf8")).toContain("MIT License");
    expect(Object.keys(JSON.parse(readFileSync(join(SHIPPED_DATA, "pubmedqa", "pqal_dev.json"), "utf8")) as object)).toHaveLength(500);
  });
});
