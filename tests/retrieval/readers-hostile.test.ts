/**
 * What a careless or hostile corpus file does to a reader: a bad document is reported with its line
 * and the rest goes in; ids keep their exact text; a BOM, gzip or a folder are handled by name.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readBeirCorpus, readCsvCorpus, readJsonlCorpus, type CorpusDocument, type ReadReport } from "@citeflow/retrieval";
import { tempDir } from "../helpers.js";

async function read(gen: AsyncGenerator<CorpusDocument>) {
  const out: CorpusDocument[] = [];
  for await (const d of gen) out.push(d);
  return out;
}
const report = (): ReadReport => ({ read: 0, problems: [] });
const lines = [
  JSON.stringify({ doc_id: "first", title: "F", abstract: ["The first document."] }),
  JSON.stringify({ doc_id: "line\nbreak", title: "N", abstract: ["An id with a newline."] }),
  JSON.stringify({ doc_id: "esc\x1b[2J", title: "E", abstract: ["An id with an escape."] }),
  '{"doc_id": 9007199254740993, "title": "Big", "abstract": ["An id past 2^53."]}',
  '{"doc_id": 9007199254740992, "title": "Big", "abstract": ["Its neighbour."]}',
  JSON.stringify({ doc_id: "last", title: "L", abstract: ["The last document."] }),
].join("\n");

describe("corpus readers and hostile files", () => {
  it("an id with a control character is reported by line; the others go in, big integer ids exactly as written", async () => {
    const path = join(tempDir(), "c.jsonl");
    writeFileSync(path, lines);
    const r = report();
    const docs = await read(readBeirCorpus(path, r));
    expect(docs.map((d) => d.docId)).toEqual(["first", "9007199254740993", "9007199254740992", "last"]);
    expect(r.problems.map((p) => p.line)).toEqual([2, 3]);
    expect(r.problems[0]!.message).toMatch(/control character/);
  });

  it("a byte-order mark does not cost the first document", async () => {
    const path = join(tempDir(), "bom.jsonl");
    writeFileSync(path, "\uFEFF" + lines);
    expect((await read(readBeirCorpus(path, report())))[0]!.docId).toBe("first");
    const csv = join(tempDir(), "bom.csv");
    writeFileSync(csv, "\uFEFFid,text\na,Alpha.\n");
    expect((await read(readCsvCorpus(csv, { id: "id", text: "text" }, report()))).map((d) => d.docId)).toEqual(["a"]);
  });

  it("a gzip corpus is read whatever its name; a folder is refused by name", async () => {
    const dir = tempDir();
    const gz = join(dir, "corpus.jsonl");
    writeFileSync(gz, gzipSync(lines));
    const r = report();
    expect(await read(readJsonlCorpus(gz, { id: "doc_id", text: "title" }, r))).toHaveLength(4);
    mkdirSync(join(dir, "folder"));
    await expect(read(readBeirCorpus(join(dir, "folder"), report()))).rejects.toThrow(/folder is a folder: give one corpus file/);
  });
});
