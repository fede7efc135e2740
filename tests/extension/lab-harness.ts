/**
 * What the JupyterLab end-to-end suites (lab-*.test.ts) share. Each suite file gets its own real
 * JupyterLab (pip, pinned, `npm run lab`'s venv) with the citeflow-jupyterlab wheel (prebuilt
 * extension and kernelspec), the Citeflow kernel, and Chromium. The helpers here drive the editor
 * as a user would. Screenshots go to test-results/extension/ (ignored by git).
 */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { Loopback } from "../models/loopback.js";
import { labSession, type LabSession } from "./lab-session.js";
import { MODELS, smallSciFactStore } from "../scifact.js";

export const root = resolve(import.meta.dirname, "..", "..");
export const shots = join(root, "test-results", "extension");
export const QUESTION = "Vitamin D deficiency is associated with fractures.";

// The session's state, as live bindings: importers read the current values.
export let lab: LabSession["lab"];
let ctx: BrowserContext;
export let page: Page;
export let work: string;
/** The SciFact store the lab searches ($CITEFLOW_STORE). */
export let storeDir: string;
export let problems: string[] = [];
/** The loopback model servers tests started; closed with the session. */
const llms: Loopback[] = [];
export function serveLlm(server: Loopback): Loopback {
  llms.push(server);
  return server;
}

/** The x translation of an editor's canvas view (it grows as the view pans right). */
export const viewX = (editor: Locator) => editor.locator(".react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).e);

export async function shot(name: string) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

export const node = (id: string) => page.locator(`.cf-editor .react-flow__node[data-id="${id}"]`);
/** A node of the Verif.ai pipeline as last saved to disk. */
export const savedNode = (id: string) => JSON.parse(readFileSync(join(work, "root", "verifai.citeflow.json"), "utf8")).nodes.find((n: { id: string }) => n.id === id);
export const uiOf = (id: string) => savedNode(id).ui as { x: number; y: number };
/** Saves, then reads the file: polled, it saves until the file shows an edit that lands a frame late. */
export const saveAnd = async <T>(read: () => T): Promise<T> => (await page.keyboard.press("Control+s"), read());
/** The ids of the nodes selected on the canvas, sorted. */
export const selectedIds = () => page.locator(".cf-editor .react-flow__node.selected").evaluateAll((es) => es.map((e) => e.getAttribute("data-id")).sort());
export const badge = (id: string) => node(id).locator(".cf-badge");

/** Starts a run by `action` and waits for that run (not the previous one) to end; its status. */
export async function runBy(action: () => Promise<void>): Promise<string> {
  const el = page.locator(".cf-run-status");
  const before = await el.getAttribute("data-run");
  await action();
  await expect.poll(async () => (await el.getAttribute("data-run")) !== before && /^(ok|error|aborted)$/.test((await el.getAttribute("data-status")) ?? ""), { timeout: 60_000 }).toBe(true);
  return (await el.getAttribute("data-status"))!;
}

export async function select(id: string) {
  await node(id).locator(".cf-node-head").click();
  await page.locator(`.cf-inspector[data-node="${id}"]`).waitFor();
}

/** Whether `what` shows up within `ms` (a dialog that may or may not come). */
export const appears = (what: Locator, ms: number) =>
  what.waitFor({ timeout: ms }).then(
    () => true,
    () => false,
  );

/** Closes every tab (one editor at a time keeps the locators simple), discarding unsaved changes. */
export async function closeAll() {
  void page.evaluate(() => (window as any).jupyterapp.shell.closeAll());
  const discard = page.locator(".jp-Dialog button", { hasText: "Discard" });
  while (await appears(discard, 3_000)) await discard.click();
  await expect.poll(() => page.locator(".jp-Document").count()).toBe(0);
}

/** Drags from an output port to an input port with the mouse, as a user would; `over` runs with the pointer over the target, before release. */
export async function dragPort(from: string, to: string, over?: () => Promise<void>) {
  const [fn, fp] = from.split(".");
  const [tn, tp] = to.split(".");
  const a = await node(fn!).locator(`.react-flow__handle.source[data-handleid="${fp}"]`).boundingBox();
  const b = await node(tn!).locator(`.react-flow__handle.target[data-handleid="${tp}"]`).boundingBox();
  await page.mouse.move(a!.x + a!.width / 2, a!.y + a!.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(a!.x + ((b!.x - a!.x) * i) / 10 + b!.width / 2, a!.y + ((b!.y - a!.y) * i) / 10 + b!.height / 2);
  await page.waitForTimeout(100);
  await over?.();
  await page.mouse.up();
}

export const undo = () => page.evaluate(() => (window as any).jupyterapp.commands.execute("citeflow:undo"));

/** The minimap's dimming outside the view, as RGBA at its top-left corner. */
export const minimapDim = () => page.locator(".cf-editor canvas.cf-minimap-view").evaluate((c: HTMLCanvasElement) => Array.from(c.getContext("2d")!.getImageData(1, 1, 1, 1).data));

/** The connection-state classes of a port handle (`node.port`, an output or an input). */
export const portState = (ref: string, type: "source" | "target") => {
  const [n, p] = ref.split(".");
  return node(n!)
    .locator(`.react-flow__handle.${type}[data-handleid="${p}"]`)
    .evaluate((e) => ["connectingfrom", "connectingto", "valid", "connectionindicator"].filter((c) => e.classList.contains(c)));
};

/**
 * Text on Citeflow's coloured backgrounds meets WCAG AA (4.5:1) in the current theme: the query
 * terms marked in the passages on the page, and a probe of every run badge, diff mark and verdict
 * label (added to the editor for the measurement, then removed).
 */
export async function expectReadable() {
  const contrasts = await page.locator(".jp-Document:not(.lm-mod-hidden) .cf-editor").evaluate((root) => {
    const probe = document.createElement("div");
    probe.innerHTML = `${["running", "paused", "done", "cached", "error"].map((s) => `<span class="cf-badge cf-badge-${s}">${s}</span>`).join("")}
      <div class="cf-diff-text"><ins>added</ins><del>removed</del></div>
      <table><tr class="cf-diff-changed"><td>changed</td></tr><tr class="cf-diff-added"><td>added</td></tr></table>
      <span class="cf-diff-mark">differs</span>
      ${["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"].map((l) => `<div class="cf-label-${l}"><span class="cf-label">${l}</span></div>`).join("")}`;
    root.append(probe);
    const rgb = (c: string) =>
      c
        .match(/[\d.]+/g)!
        .slice(0, 3)
        .map(Number);
    const lum = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const out = [...root.querySelectorAll(".cf-passages mark"), ...probe.querySelectorAll(".cf-badge, ins, del, td, .cf-label, .cf-diff-mark")].map((el) => {
      const s = getComputedStyle(el);
      const [a, b] = [lum(s.color), lum(s.backgroundColor)];
      return { what: `${el.tagName} ${el.className || el.parentElement!.className}`, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
    });
    probe.remove();
    return out;
  });
  expect(contrasts.some((c) => c.what.startsWith("MARK"))).toBe(true);
  // The lowest ratio of each kind of element that falls short.
  const short = new Map<string, number>();
  for (const { what, ratio } of contrasts) if (ratio < 4.5) short.set(what, Math.min(ratio, short.get(what) ?? Infinity));
  expect(Object.fromEntries(short)).toEqual({});
}

/** Hooks for a suite file: its own JupyterLab on a SciFact store and a browser; a screenshot of each failure. */
export function useLab(): void {
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    work = mkdtempSync(join(tmpdir(), "citeflow-lab-"));
    const { store } = await smallSciFactStore(300);
    storeDir = store;
    ({ lab, ctx, page, problems } = await labSession(work, {
      CITEFLOW_STORE: store,
      CITEFLOW_STORE_LABEL: "SciFact",
      CITEFLOW_RUNS: join(work, "runs"),
      // The test fixtures, and the models Citeflow ships (the suites' models home is empty): the
      // pipelines verify and rerank with Citeflow's own models, as on a fresh clone.
      CITEFLOW_MODELS: [MODELS, resolve(fileURLToPath(new URL("../../models", import.meta.url)))].join(delimiter),
    }));
  }, 240_000);

  afterEach(async (t) => {
    if (t.task.result?.state === "fail" && page) await shot(`failed-${t.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, "-")}`);
  });

  afterAll(async () => {
    await ctx?.close();
    await lab?.stop();
    await Promise.all(llms.map((l) => l.close()));
  }, 60_000);
}

/** Opens the Verif.ai template from the launcher and shows the whole graph (the fit-view control). */
export async function openVerifai(): Promise<void> {
  await page.locator(".jp-LauncherCard", { hasText: "Template: Verif.ai" }).click();
  await node("verify").waitFor({ timeout: 60_000 });
  const editor = page.locator(".cf-editor");
  await editor.locator(".react-flow__controls-fitview").click();
  // In a hook, not a test: wait for the fit with the page's own polling.
  await page.waitForFunction(NODES_IN_VIEW);
}

/** Whether every node of the open pipeline lies whole inside the canvas (run in the page). */
export const NODES_IN_VIEW = () => {
  const pane = document.querySelector(".cf-editor .react-flow")!.getBoundingClientRect();
  const nodes = [...document.querySelectorAll(".cf-editor .react-flow__node")].map((n) => n.getBoundingClientRect());
  return nodes.length > 0 && nodes.every((r) => r.left >= pane.left - 0.5 && r.right <= pane.right + 0.5 && r.top >= pane.top - 0.5 && r.bottom <= pane.bottom + 0.5);
};

/** The nodes under the canvas's zoom controls (run in the page): their ids. */
export const NODES_CLEAR_OF_CONTROLS = () => {
  const controls = document.querySelector(".cf-editor .react-flow__controls")!.getBoundingClientRect();
  return [...document.querySelectorAll(".cf-editor .react-flow__node")]
    .filter((n) => {
      const r = n.getBoundingClientRect();
      return r.left < controls.right && r.right > controls.left && r.top < controls.bottom && r.bottom > controls.top;
    })
    .map((n) => n.getAttribute("data-id"));
};

/**
 * The edges drawn across a node other than their two ends (run in the page): each edge's path is
 * sampled every few pixels, and a sample inside a node's box (less a 4 px margin) counts. Returns
 * "edge id → node id" for each.
 */
export const EDGES_ACROSS_NODES = () => {
  const boxes = [...document.querySelectorAll(".cf-editor .react-flow__node")].map((n) => ({ id: n.getAttribute("data-id")!, r: n.getBoundingClientRect() }));
  const across: string[] = [];
  for (const g of document.querySelectorAll(".cf-editor g.cf-edge")) {
    const id = g.getAttribute("data-id")!;
    const [from, to] = id.split("->").map((end) => end.slice(0, end.lastIndexOf(".")));
    const path = g.querySelector("path.react-flow__edge-path") as SVGPathElement | null;
    const ctm = path?.getScreenCTM();
    if (!path || !ctm || !path.getAttribute("d")) continue;
    const length = path.getTotalLength();
    const hit = new Set<string>();
    for (let at = 0; at <= length; at += 4) {
      const p = path.getPointAtLength(at).matrixTransform(ctm);
      for (const { id: n, r } of boxes) if (n !== from && n !== to && p.x > r.left + 4 && p.x < r.right - 4 && p.y > r.top + 4 && p.y < r.bottom - 4) hit.add(n);
    }
    for (const n of hit) across.push(`${id} → ${n}`);
  }
  return across;
};
