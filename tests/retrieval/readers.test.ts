import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readBeirCorpus, readJsonlCorpus, readPubMedQA, type CorpusDocument, type ReadReport } from "@citeflow/retrieval";
import { tempDir } from "../helpers.js";

const DATA = process.env.CITEFLOW_DATA;
if (!DATA) throw new Error("CITEFLOW_DATA must point at a data folder (vitest.config.ts defaults it)");

async function all(gen: AsyncGenerator<CorpusDocument>) {
  const out: CorpusDocument[] = [];
  for await (const d of gen) out.push(d);
  return out;
}

describe("corpus readers", () => {
  it("reads the whole SciFact corpus, sentences kept", async () => {
    const report: ReadReport = { read: 0, problems: [] };
    const docs = await all(readBeirCorpus(join(DATA, "scifact", "corpus.jsonl"), report));
    expect(docs).toHaveLength(5183);
    expect(report).toEqual({ read: 5183, problems: [] });
    const d = docs[0]!;
    expect(d.docId).toMatch(/^\d+$/);
    expect(d.sentences!.length).toBeGreaterThan(0);
    expect(d.text).toBe(d.sentences!.join(" "));
    expect(d.metadata.source).toBe("scifact");
  });

  it("reports bad lines with their numbers and reads the rest", async () => {
    const path = join(tempDir(), "corpus.jsonl");
    writeFileSync(
      path,
      [
        JSON.stringify({ _id: "a", title: "A", text: "Alpha text.", metadata: { year: 2020 } }),
        "{broken",
        JSON.stringify({ title: "no id" }),
        "[1,2]",
        JSON.stringify({ doc_id: 7, title: "S", abstract: ["One.", "Two."] }),
        JSON.stringify({ _id: "b", title: "no text" }),
      ].join("\n"),
    );
    const report: ReadReport = { read: 0, problems: [] };
    const docs = await all(readBeirCorpus(path, report, "beir"));
    expect(docs.map((d) => d.docId)).toEqual(["a", "7"]);
    expect(docs[0]!.metadata).toEqual({ source: "beir", year: 2020 });
    expect(report.read).toBe(2);
    expect(report.problems.map((p) => p.line)).toEqual([2, 3, 4, 6]);
    expect(report.problems[0]!.message).toMatch(/not valid JSON/);
    expect(report.problems[3]!.message).toBe('document b: no "abstract" (list of sentences) or "text"');
  });

  it("reads a generic JSONL corpus through a field map", async () => {
    const path = join(tempDir(), "c.jsonl");
    writeFileSync(path, [JSON.stringify({ pid: "p1", heading: "H", body: "B", yr: "2019", cites: 12 }), JSON.stringify({ pid: "p2" })].join("\n"));
    const report: ReadReport = { read: 0, problems: [] };
    const docs = await all(readJsonlCorpus(path, { id: "pid", title: "heading", text: "body", year: "yr", citationCount: "cites" }, report));
    expect(docs).toEqual([{ docId: "p1", title: "H", text: "B", metadata: { source: "jsonl", year: 2019, citationCount: 12 } }]);
    expect(report.problems).toEqual([{ line: 2, message: 'document p2: no text field "body"' }]);
  });

  it("reads PubMedQA contexts as documents, leaving out the conclusion", async () => {
    const docs = await all(readPubMedQA(join(DATA, "pubmedqa", "pqal_dev.json")));
    expect(docs).toHaveLength(500);
    expect(docs[0]!.metadata.source).toBe("pubmedqa");
    expect(typeof docs[0]!.metadata.year).toBe("number");
  });
});
