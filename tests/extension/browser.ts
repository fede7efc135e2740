/** What every browser suite of the extension shares: Debian's Chromium, headless, as a user's browser. */
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";

export const CHROMIUM = {
  headless: true,
  executablePath: process.env.CITEFLOW_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
};

export interface Browser {
  ctx: BrowserContext;
  page: Page;
  /** Console errors and page errors, each with the test it happened in. */
  problems: string[];
}

/** A 1600×1000 Chromium window on `profile`, collecting console and page errors. */
export async function openBrowser(profile: string): Promise<Browser> {
  const ctx = await chromium.launchPersistentContext(profile, { ...CHROMIUM, viewport: { width: 1600, height: 1000 } });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error in "${expect.getState().currentTestName}": ${e.message}\n${e.stack}`));
  return { ctx, page, problems };
}
