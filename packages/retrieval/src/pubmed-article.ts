import { XMLParser } from "fast-xml-parser";
import type { CorpusDocument } from "./document.js";

/** Parses PubMed XML (a <PubmedArticleSet>, or one <PubmedArticle>) the same way everywhere. */
export const pubmedXmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  isArray: (name) => name === "PubmedArticle" || name === "AbstractText",
});

/** Text of an XML node; labelled abstract sections keep their label ("RESULTS: …"). */
function text(node: unknown): string {
  if (node === undefined || node === null) return "";
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(text).join(" ");
  const obj = node as Record<string, unknown>;
  const label = typeof obj["@Label"] === "string" ? `${obj["@Label"]}: ` : "";
  return (
    label +
    text(
      obj["#text"] ??
        Object.entries(obj)
          .filter(([k]) => !k.startsWith("@"))
          .map(([, v]) => v),
    )
  );
}

/** One parsed <PubmedArticle> → a document, or a message saying why it cannot be one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed XML: each field is checked where it is read
export function pubmedDocument(article: any): CorpusDocument | string {
  const cit = article?.MedlineCitation;
  const pmid = text(cit?.PMID).trim();
  if (!pmid) return "article without a PMID";
  const abstract = text(cit?.Article?.Abstract?.AbstractText).trim();
  if (!abstract) return `PMID ${pmid}: no abstract`;
  const year = Number(text(cit?.Article?.Journal?.JournalIssue?.PubDate?.Year).trim());
  return {
    docId: pmid,
    title: text(cit?.Article?.ArticleTitle).trim(),
    text: abstract,
    metadata: { source: "pubmed", url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`, ...(Number.isInteger(year) && year > 0 ? { year } : {}) },
  };
}
