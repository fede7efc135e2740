/** What the JupyterLab suites share: the real JupyterLab with the wheel installed, and Chromium on it. */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { openBrowser } from "./browser.js";

const root = resolve(import.meta.dirname, "..", "..");

export interface LabSession {
  lab: { url: string; stop(): Promise<void> };
  ctx: BrowserContext;
  page: Page;
  problems: string[];
}

/** JupyterLab on `<work>/root` (state in `<work>/state`) with the Citeflow kernel seeing `env`, and a browser at its launcher. */
export async function labSession(work: string, env: Record<string, string>): Promise<LabSession> {
  const { startLab } = await import(join(root, "scripts", "lab.mjs"));
  mkdirSync(join(work, "root"), { recursive: true });
  const lab = await startLab({ state: join(work, "state"), root: join(work, "root"), quiet: true, exposeApp: true, env });
  const { ctx, page, problems } = await openBrowser(join(work, "chromium"));
  await page.goto(lab.url);
  await page.locator(".jp-LauncherCard").first().waitFor({ timeout: 60_000 });
  return { lab, ctx, page, problems };
}
