import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { pageAt, splitSentences, type Claim, type Passage, type Verdict } from "@citeflow/core";
import { templateNames, templatePath } from "@citeflow/nodes";
import { configure, pdfStore, run as runInNotebook, services, CITEFLOW_MIME } from "citeflow";
import { exportDataset } from "@citeflow/datasets";
import { loadImage, createCanvas } from "@napi-rs/canvas";
import { readingOrder } from "@citeflow/eval";
import { extractPdf, findPdfs, LanceStore, openScholarChunker, readPdfs, renderEvidencePage, verifaiChunker, type PdfText, type ReadReport } from "@citeflow/retrieval";
import { envServices, run, tempDir } from "../helpers.js";
import { MODELS, restoreEnvAfterEach } from "../scifact.js";
import { encrypted, plainAbstracts, rasterised, requireTool, sourceBody, truncated, typesetPaper } from "../../scripts/papers.mjs";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

function ingest(folder: string, store: string) {
  const r = spawnSync(process.execPath, [bin, "ingest", folder, "--format", "pdf", "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS, "--json"], { encoding: "utf8" });
  return { code: r.status, summary: r.stdout ? JSON.parse(r.stdout) : undefined, stderr: r.stderr };
}

/** The page pdftotext (Poppler, another extractor) finds a phrase on: the page numbers' ground truth. */
function popplerPage(pdf: string, phrase: string, pages: number): number | undefined {
  for (let n = 1; n <= pages; n++) {
    const page = execFileSync("pdftotext", ["-f", String(n), "-l", String(n), pdf, "-"], { encoding: "utf8" });
    if (page.replace(/-\n/g, "").replace(/\s+/g, " ").includes(phrase)) return n;
  }
  return undefined;
}

let dir: string;
let paper: ReturnType<typeof typesetPaper>;
let text: PdfText;

beforeAll(async () => {
  requireTool("pdftotext");
  dir = mkdtempSync(join(tmpdir(), "citeflow-pdf-"));
  const docs = await plainAbstracts(14);
  paper = typesetPaper(join(dir, "src"), "paper", docs.slice(0, 11), docs.slice(11));
  text = await extractPdf(new Uint8Array(readFileSync(paper.pdf)));
}, 60_000);

describe("PDF text (pdf.js, a two-column LaTeX paper of SciFact abstracts)", () => {
  it("reads the body in reading order, line-end hyphens repaired, running heads and references out of it", () => {
    const score = readingOrder(sourceBody(paper), text.text);
    // Measured: 2 of about 2,500 words ("non-replicative" read as "nonreplicative").
    expect(score.errors).toBeLessThanOrEqual(5);
    expect(score.extra).toBeLessThanOrEqual(5);
    expect(text.hyphens.joined).toBeGreaterThan(20);
    expect(text.text).not.toContain(paper.running);
    expect(text.furniture).toContain(paper.running);
    expect(text.text).not.toContain("Journal of Tests");
    expect(text.references).toHaveLength(paper.references.length);
    paper.references.forEach((r, i) => expect(readingOrder(r, text.references[i]!).errors).toBeLessThanOrEqual(1));
    // Every white-space run is one character, so passage offsets map 1:1 onto the document.
    expect(text.text).not.toMatch(/\s\s/);
  });

  it("takes title, authors and year from the document's info", () => {
    expect(text.title).toBe(paper.title);
    expect(text.authors).toEqual(["Ada Lovelace", "Charles Babbage"]);
    expect(text.year).toBe(paper.year);
    expect(text.pageCount).toBeGreaterThanOrEqual(4);
  });

  it("keeps page numbers: each section starts on the page Poppler finds it on", () => {
    expect(text.pages.map((p) => p.page)).toEqual(Array.from({ length: text.pageCount }, (_, i) => i + 1));
    for (const s of paper.sections) {
      const words = s.text.split(" ").slice(0, 4).join(" ");
      const at = text.text.indexOf(words);
      expect(at, words).toBeGreaterThan(0);
      const page = text.pages.filter((p) => p.start <= at).at(-1)!.page;
      expect(page, words).toBe(popplerPage(paper.pdf, words, text.pageCount));
    }
  });

  it("passages carry their offsets into the document and their pages; every sentence maps back", async () => {
    const report: ReadReport = { read: 0, problems: [] };
    const docs = [];
    const pagesSeen: Array<[number, number]> = [];
    for await (const d of readPdfs(findPdfs(paper.pdf), report, { onPage: (_f, page, pages) => pagesSeen.push([page, pages]) })) docs.push(d);
    const [doc] = docs;
    expect(report.problems).toEqual([]);
    // Progress page by page, in order, for every page.
    const count = doc!.metadata.pageCount as number;
    expect(count).toBeGreaterThan(1);
    expect(pagesSeen).toEqual(Array.from({ length: count }, (_, i) => [i + 1, count]));
    for (const chunker of [openScholarChunker(120), verifaiChunker({ maxTokens: 150 })]) {
      const passages = chunker(doc!);
      expect(passages.length).toBeGreaterThan(5);
      for (const p of passages) {
        const { start, end } = p.metadata;
        expect(p.text).toBe(doc!.text.slice(start, end).replace(/\s/g, " "));
        // A sentence's page, read from the passage alone, is the page of the same offset in the document.
        let from = 0;
        for (const sentence of splitSentences(p.text)) {
          const at = p.text.indexOf(sentence, from);
          from = at + sentence.length;
          const docPage = doc!.pages!.filter((q) => q.start <= start! + at).at(-1)!.page;
          expect(pageAt(p, at)).toBe(docPage);
        }
      }
      expect(passages.some((p) => p.metadata.pageStarts)).toBe(true);
    }
  });
});

describe("citeflow ingest --format pdf", () => {
  it("ingests the good PDFs of a folder, names each bad one with its reason, and re-reads only changed files", async () => {
    const folder = join(dir, "papers");
    mkdirSync(join(folder, "sub"), { recursive: true });
    copyFileSync(paper.pdf, join(folder, "good.pdf"));
    rasterised(paper.pdf, join(folder, "scanned.pdf"));
    encrypted(paper.pdf, join(folder, "locked.pdf"));
    truncated(paper.pdf, join(folder, "sub", "cut.pdf"));
    const store = tempDir();

    const first = ingest(folder, store);
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary.sources).toMatchObject({ entries: 4, unchanged: 0, replaced: 0, pages: text.pageCount });
    const problems = Object.fromEntries(first.summary.problems.map((p: { file: string; message: string }) => [p.file.slice(folder.length + 1), p.message]));
    expect(problems).toEqual({
      "scanned.pdf": expect.stringMatching(/^no text layer on any of its \d+ page\(s\): a scan or images only; run OCR/),
      "locked.pdf": expect.stringMatching(/^encrypted with a password/),
      "sub/cut.pdf": expect.stringMatching(/^not a readable PDF .*cut short/),
    });
    expect(first.stderr).toContain(`${join(folder, "locked.pdf")}: encrypted with a password`);
    const s = await LanceStore.open(store);
    const n = await s.count();
    const firstPassage = (await s.passages([{ id: "good#0" }])).get("good#0")!;
    expect(firstPassage.metadata).toMatchObject({ source: "pdf", path: join(folder, "good.pdf"), page: 1, start: 0, pageCount: text.pageCount, year: 2023 });

    // Unchanged: not read again.
    const again = ingest(folder, store);
    expect(again.summary.sources).toMatchObject({ unchanged: 1, pages: 0 });
    expect(again.summary.added).toBe(0);
    expect(await s.count()).toBe(n);

    // Changed: its old passages go, the new text comes in under the same id.
    const other = typesetPaper(join(dir, "other"), "good", (await plainAbstracts(20)).slice(14, 17), []);
    copyFileSync(other.pdf, join(folder, "good.pdf"));
    const changed = ingest(folder, store);
    expect(changed.summary.sources).toMatchObject({ unchanged: 0, replaced: 1 });
    const now = await LanceStore.open(store);
    expect(await now.count()).toBe(changed.summary.added);
    expect((await now.passages([{ id: "good#0" }])).get("good#0")!.text).toContain(other.sections[0]!.text.split(" ").slice(0, 8).join(" "));
  }, 120_000);

  it("fails with the reasons when no PDF can be read, and says so when there are none", () => {
    const folder = join(dir, "bad");
    mkdirSync(folder, { recursive: true });
    encrypted(paper.pdf, join(folder, "locked.pdf"));
    const r = ingest(folder, tempDir());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/locked\.pdf: encrypted with a password[\s\S]*no document of .* could be read: all 1 file\(s\) have a problem/);
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const none = ingest(empty, tempDir());
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no \.pdf files found/);
  });
});

describe("a store of PDFs under the templates", () => {
  restoreEnvAfterEach("CITEFLOW_STORE", "CITEFLOW_NLI_MODEL", "CITEFLOW_CHAT_MODEL", "CITEFLOW_RERANK_MODEL");

  it("every template runs on it; a Verif.ai verdict is pinned to its sentence and page, and that page renders with the span marked", async () => {
    const folder = join(dir, "templates");
    mkdirSync(folder, { recursive: true });
    copyFileSync(paper.pdf, join(folder, "paper.pdf"));
    const store = tempDir();
    expect(ingest(folder, store).code).toBe(0);
    process.env.CITEFLOW_STORE = store;
    process.env.CITEFLOW_NLI_MODEL = "pair-nli-scifact";
    process.env.CITEFLOW_CHAT_MODEL = "none";
    process.env.CITEFLOW_RERANK_MODEL = "pair-rerank-scifact";
    const section = paper.sections[4]!;
    const question = { id: "q", text: splitSentences(section.text)[1]! };
    for (const name of templateNames()) {
      const r = await run(JSON.parse(readFileSync(templatePath(name), "utf8")), { inputs: { question } });
      expect(r.result.status, `${name}: ${JSON.stringify(r.result.nodes.find((n) => n.error)?.error)}`).toBe("ok");
    }

    const r = await run(JSON.parse(readFileSync(templatePath("verifai"), "utf8")), { inputs: { question } });
    const verdicts = r.byId.verify!.outputs!.verdicts as Verdict[];
    const passages = new Map(
      r.result.nodes
        .flatMap(
          (n) =>
            Object.values(n.outputs ?? {})
              .filter(Array.isArray)
              .flat() as Passage[],
        )
        .filter((p) => p?.metadata)
        .map((p) => [p.id, p]),
    );
    const pinned = verdicts.filter((v) => v.evidence);
    expect(pinned.length).toBeGreaterThan(0);
    for (const v of pinned) {
      const e = v.evidence!;
      const p = passages.get(e.passageId)!;
      expect(p.text.slice(e.start, e.end)).toBe(e.sentence);
      expect(e.page).toBe(pageAt(p, e.start!));
      expect(e.page).toBe(popplerPage(paper.pdf, e.sentence.split(" ").slice(0, 4).join(" "), text.pageCount));
    }

    // "Open at page": the page of the first verdict, the sentence's lines marked in amber.
    const e = pinned[0]!.evidence!;
    const p = passages.get(e.passageId)!;
    const page = await renderEvidencePage({ path: String(p.metadata.path), sha256: String(p.metadata.sha256), start: p.metadata.start! + e.start!, end: p.metadata.start! + e.end! });
    expect(page.page).toBe(e.page);
    expect(page.boxes.length).toBeGreaterThan(0);
    const img = await loadImage(Buffer.from(page.png));
    const canvas = createCanvas(img.width, img.height);
    const g = canvas.getContext("2d");
    g.drawImage(img, 0, 0);
    const tint = (x: number, y: number) => {
      const [red, green, blue] = g.getImageData(Math.round(x), Math.round(y), 1, 1).data;
      // The marker's amber over white paper: red and green high, blue well below them.
      return red! > 220 && green! > 180 && red! - blue! > 50;
    };
    const [x, y, w, h] = page.boxes[0]!;
    // Paper inside a marked line is amber; the page margin is white.
    expect([...Array(20).keys()].some((i) => tint(x + (w * (i + 0.5)) / 20, y + h / 2))).toBe(true);
    expect(tint(5, 5)).toBe(false);

    // A file changed since the ingest is refused: its offsets no longer hold.
    await expect(renderEvidencePage({ path: String(p.metadata.path), sha256: "0".repeat(64), start: 0, end: 5 })).rejects.toThrow(/changed since it was ingested/);
  }, 180_000);
});

describe("PDFs from a notebook (the citeflow package)", () => {
  restoreEnvAfterEach("CITEFLOW_STORE", "CITEFLOW_NLI_MODEL", "CITEFLOW_CHAT_MODEL");

  it("pdfStore ingests a folder; the verdicts display marks each sentence in its passage with its page; evidencePage shows the page; exports carry the span", async () => {
    const folder = join(dir, "notebook");
    mkdirSync(folder, { recursive: true });
    copyFileSync(paper.pdf, join(folder, "paper.pdf"));
    truncated(paper.pdf, join(folder, "cut.pdf"));
    const runs = tempDir();
    const made = await pdfStore(folder, { runs });
    expect(services().config.store).toBe(made.store);
    expect(made.tally).toMatchObject({ entries: 2, pages: text.pageCount });
    expect(made.problems).toEqual([{ file: join(folder, "cut.pdf"), message: expect.stringMatching(/cut short/) }]);
    expect((await pdfStore(folder, { runs })).tally).toMatchObject({ unchanged: 1, pages: 0 });

    configure({ models: { nli: "pair-nli-scifact" }, chat: { model: "none" } });
    const r = await runInNotebook("verifai", splitSentences(paper.sections[4]!.text)[1]!, { runs, display: false });
    const view = r.verdicts().data[CITEFLOW_MIME] as { verdicts: Verdict[]; passages?: Passage[] };
    const pinned = view.verdicts.find((v) => v.evidence?.page)!;
    const passage = view.passages!.find((p) => p.id === pinned.evidence!.passageId)!;
    expect(passage.text.slice(pinned.evidence!.start, pinned.evidence!.end)).toBe(pinned.evidence!.sentence);
    expect(String(r.verdicts().data["text/html"])).toContain(`(p. ${pinned.evidence!.page})`);

    const shown = (await r.evidencePage(pinned.claimId)).data;
    expect(Buffer.from(String(shown["image/png"]), "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(shown["text/plain"]).toContain(`page ${pinned.evidence!.page}: "${pinned.evidence!.sentence}"`);

    // The NLI export says where each premise sits: in its passage, in its document, on its page. The extractive
    // answer's claims quote their sentences, and a quote against itself teaches nothing (the export drops it), so the
    // same run again with the claims in other words gives the rows.
    const worded = (r.output("claims", "claims") as Claim[]).map((c) => ({ ...c, text: `The paper states that ${c.text.charAt(0).toLowerCase()}${c.text.slice(1)}` }));
    await runInNotebook("verifai", splitSentences(paper.sections[4]!.text)[1]!, { runs, display: false, overrides: { claims: { claims: worded } } });
    const out = tempDir();
    exportDataset({ runs, services: envServices(), format: "nli", out, split: 1 });
    const rows = readFileSync(join(out, "train.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const row = rows.find((x) => x.metadata.evidence?.passageId === pinned.evidence!.passageId && x.premise === pinned.evidence!.sentence)!;
    expect(row.metadata.evidence).toEqual({
      passageId: passage.id,
      start: pinned.evidence!.start,
      end: pinned.evidence!.end,
      docStart: passage.metadata.start! + pinned.evidence!.start!,
      docEnd: passage.metadata.start! + pinned.evidence!.end!,
      page: pinned.evidence!.page,
    });
    expect(text.text.slice(row.metadata.evidence.docStart, row.metadata.evidence.docEnd).replace(/\s/g, " ")).toBe(pinned.evidence!.sentence);
  }, 120_000);
});
