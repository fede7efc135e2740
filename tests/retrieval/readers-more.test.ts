import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { csvRecords, readCsvCorpus, readPubMedXml, type CorpusDocument, type ReadReport } from "@citeflow/retrieval";
import { tempDir } from "../helpers.js";

async function all<T>(gen: AsyncIterable<T>) {
  const out: T[] = [];
  for await (const d of gen) out.push(d);
  return out;
}
async function* chunks(...parts: string[]) {
  yield* parts;
}

describe("CSV", () => {
  it("parses quoted commas, doubled quotes and line breaks, with the line each record starts on", async () => {
    const recs = await all(csvRecords(chunks('id,text\r\n1,"a, b"\n2,"say ""hi""\nsecond line"\n3,plain\n')));
    expect(recs).toEqual([
      { line: 1, fields: ["id", "text"] },
      { line: 2, fields: ["1", "a, b"] },
      { line: 3, fields: ["2", 'say "hi"\nsecond line'] },
      { line: 5, fields: ["3", "plain"] },
    ]);
  });

  it("gives the same records whichever way the text is cut into chunks", async () => {
    const text = 'id,text\n1,"x ""y"" z"\n2,"multi\nline"\n';
    const whole = await all(csvRecords(chunks(text)));
    for (let cut = 1; cut < text.length; cut++) expect(await all(csvRecords(chunks(text.slice(0, cut), text.slice(cut))))).toEqual(whole);
  });

  it("reports malformed records and reads the rest of a CSV corpus", async () => {
    const path = join(tempDir(), "c.csv");
    writeFileSync(path, ["pid,heading,body,yr", 'p1,"Title, with comma","Body one",2020', "p2,T2", "p3,T3,,2021", ',T4,"body",2019', 'p5,T5,"ok" trailing,2018', 'p6,T6,"fine",x'].join("\n"));
    const report: ReadReport = { read: 0, problems: [] };
    const docs = await all(readCsvCorpus(path, { id: "pid", title: "heading", text: "body", year: "yr" }, report));
    expect(docs.map((d: CorpusDocument) => [d.docId, d.title, d.text, d.metadata.year])).toEqual([
      ["p1", "Title, with comma", "Body one", 2020],
      ["p6", "T6", "fine", undefined],
    ]);
    expect(report.problems.map((p) => [p.line, p.message])).toEqual([
      [3, "2 fields, the header has 4"],
      [4, 'document p3: empty text column "body"'],
      [5, 'empty id column "pid"'],
      [6, "text after a closing quote in field 3"],
    ]);
    await expect(all(readCsvCorpus(path, { id: "nope", text: "body" }))).rejects.toThrow(/no column "nope" for id/);
  });
});

describe("PubMed baseline XML", () => {
  it("streams articles from .xml.gz, structured abstracts joined, problems with line numbers", async () => {
    const article = (pmid: string, abstract: string) => `<PubmedArticle>
  <MedlineCitation Status="MEDLINE"><PMID Version="1">${pmid}</PMID><Article>
    <Journal><JournalIssue><PubDate><Year>2001</Year></PubDate></JournalIssue></Journal>
    <ArticleTitle>Title ${pmid}</ArticleTitle>
    ${abstract}
  </Article></MedlineCitation>
</PubmedArticle>`;
    const xml = [
      '<?xml version="1.0" encoding="utf-8"?>',
      "<PubmedArticleSet>",
      article("1", '<Abstract><AbstractText Label="AIM">Aim.</AbstractText><AbstractText Label="RESULTS">Found.</AbstractText></Abstract>'),
      article("2", ""),
      article("3", "<Abstract><AbstractText>Plain.</AbstractText></Abstract>"),
      "</PubmedArticleSet>",
    ].join("\n");
    const path = join(tempDir(), "pubmed24n0001.xml.gz");
    writeFileSync(path, gzipSync(xml));
    const report: ReadReport = { read: 0, problems: [] };
    const docs = await all(readPubMedXml(path, report));
    expect(docs.map((d) => [d.docId, d.title, d.text, d.metadata.year])).toEqual([
      ["1", "Title 1", "AIM: Aim. RESULTS: Found.", 2001],
      ["3", "Title 3", "Plain.", 2001],
    ]);
    expect(report.problems).toEqual([{ line: 10, message: "PMID 2: no abstract" }]);
  });
});
