/**
 * End to end in the real JupyterLab and Chromium, on a store of a LaTeX-typeset PDF: the Verif.ai
 * template's verdicts show each evidence sentence marked inside its passage with its page, and
 * "Open at page" shows the page (rendered by the kernel) with the sentence's lines marked.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitSentences } from "@citeflow/core";
import { labSession } from "./lab-session.js";
import { MODELS } from "../scifact.js";
import { plainAbstracts, typesetPaper } from "../../scripts/papers.mjs";

const root = resolve(import.meta.dirname, "..", "..");
const shots = join(root, "test-results", "extension");
let lab: { url: string; stop(): Promise<void> };
let ctx: BrowserContext;
let page: Page;
let problems: string[] = [];
let question: string;

describe("evidence pinned to a PDF page (JupyterLab, Chromium)", () => {
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const work = mkdtempSync(join(tmpdir(), "citeflow-lab-evidence-"));
    const docs = await plainAbstracts(14);
    const paper = typesetPaper(join(work, "tex"), "paper", docs.slice(0, 11), docs.slice(11));
    mkdirSync(join(work, "papers"));
    copyFileSync(paper.pdf, join(work, "papers", "paper.pdf"));
    const store = join(work, "store");
    const ingest = spawnSync(
      process.execPath,
      [join(root, "packages/cli/dist/bin.js"), "ingest", join(work, "papers"), "--format", "pdf", "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS],
      { encoding: "utf8" },
    );
    expect(ingest.status, ingest.stderr).toBe(0);
    question = splitSentences(paper.sections[4]!.text)[1]!;
    ({ lab, ctx, page, problems } = await labSession(work, {
      CITEFLOW_STORE: store,
      CITEFLOW_RUNS: join(work, "runs"),
      CITEFLOW_MODELS: MODELS,
      CITEFLOW_NLI_MODEL: "pair-nli-scifact",
      CITEFLOW_CHAT_MODEL: "none",
    }));
  }, 240_000);

  afterAll(async () => {
    await ctx?.close();
    await lab?.stop();
  }, 60_000);

  it("marks each evidence sentence in its passage with its page, and opens the page with the sentence marked", async () => {
    await page.locator(".jp-LauncherCard", { hasText: "Template: Verif.ai" }).click();
    const verify = page.locator('.cf-editor .react-flow__node[data-id="verify"]');
    await verify.waitFor({ timeout: 60_000 });
    await page.locator(".cf-question").fill(question);
    await page.locator('[data-action="run"]').click();
    await expect.poll(() => page.locator(".cf-run-status").getAttribute("data-status"), { timeout: 90_000 }).toBe("ok");
    await verify.locator(".cf-node-head").click();
    const inspector = page.locator('.cf-inspector[data-node="verify"]');
    const mark = inspector.locator(".cf-evidence-span").first();
    await mark.waitFor({ timeout: 30_000 });

    // The sentence is marked inside its passage's text, with context around it, and its page named.
    const box = inspector.locator(".cf-evidence-box").first();
    const sentence = (await mark.textContent())!;
    expect(sentence.length).toBeGreaterThan(20);
    expect((await box.locator("blockquote").textContent())!.length).toBeGreaterThan(sentence.length);
    expect(await box.locator(".cf-page").textContent()).toMatch(/^page \d+$/);
    expect(await box.locator(".cf-evidence-where").textContent()).toContain("paper.pdf");

    // Open at page: the kernel renders the page; it shows in the inspector, at the page's proportions.
    await box.locator("button", { hasText: /^Open at page \d+$/ }).click();
    const img = box.locator("img.cf-page-image");
    await img.waitFor({ timeout: 30_000 });
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(500);
    const [w, h] = await img.evaluate((i: HTMLImageElement) => [i.naturalWidth, i.naturalHeight]);
    expect(h! / w!).toBeCloseTo(841.89 / 595.28, 2); // A4
    const page_ = (await box.locator(".cf-page").textContent())!.replace("page ", "");
    expect(await img.getAttribute("alt")).toContain(`Page ${page_} of `);
    // Amber on the rendered page: the marked lines.
    const amber = await img.evaluate((i: HTMLImageElement) => {
      const c = document.createElement("canvas");
      c.width = i.naturalWidth;
      c.height = i.naturalHeight;
      const g = c.getContext("2d")!;
      g.drawImage(i, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k]! > 220 && d[k + 1]! > 180 && d[k]! - d[k + 2]! > 50) n++;
      return n;
    });
    expect(amber).toBeGreaterThan(2000);
    await page.screenshot({ path: join(shots, "evidence-page.png") });
    await box.locator("button", { hasText: "Hide page" }).click();
    await expect.poll(() => img.count()).toBe(0);
    expect(problems).toEqual([]);
  }, 180_000);
});
