/**
 * End to end: the real JupyterLab (pip, pinned, `npm run lab`'s venv) with the citeflow-jupyterlab
 * wheel installed into it (the prebuilt extension and the kernelspec), the Citeflow kernel, real Chromium.
 * Screenshots go to test-results/extension/ (ignored by git).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { CHROMIUM } from "./browser.js";
import { labSession, type LabSession } from "./lab-session.js";
import { MODELS, smallSciFactStore } from "../scifact.js";

const root = resolve(import.meta.dirname, "..", "..");
const shots = join(root, "test-results", "extension");
const QUESTION = "Vitamin D deficiency is associated with fractures.";

let lab: LabSession["lab"];
let ctx: BrowserContext;
let page: Page;
let work: string;
let llm: Loopback | undefined;
let problems: string[] = [];

/** The x translation of an editor's canvas view (it grows as the view pans right). */
const viewX = (editor: Locator) => editor.locator(".react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).e);

async function shot(name: string) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

const node = (id: string) => page.locator(`.cf-editor .react-flow__node[data-id="${id}"]`);
/** A node of the Verif.ai pipeline as last saved to disk. */
const savedNode = (id: string) => JSON.parse(readFileSync(join(work, "root", "verifai.citeflow.json"), "utf8")).nodes.find((n: { id: string }) => n.id === id);
const uiOf = (id: string) => savedNode(id).ui as { x: number; y: number };
/** Saves, then reads the file: polled, it saves until the file shows an edit that lands a frame late. */
const saveAnd = async <T>(read: () => T): Promise<T> => (await page.keyboard.press("Control+s"), read());
/** The ids of the nodes selected on the canvas, sorted. */
const selectedIds = () => page.locator(".cf-editor .react-flow__node.selected").evaluateAll((es) => es.map((e) => e.getAttribute("data-id")).sort());
const badge = (id: string) => node(id).locator(".cf-badge");

/** Starts a run by `action` and waits for that run (not the previous one) to end; its status. */
async function runBy(action: () => Promise<void>): Promise<string> {
  const el = page.locator(".cf-run-status");
  const before = await el.getAttribute("data-run");
  await action();
  await expect.poll(async () => (await el.getAttribute("data-run")) !== before && /^(ok|error|aborted)$/.test((await el.getAttribute("data-status")) ?? ""), { timeout: 60_000 }).toBe(true);
  return (await el.getAttribute("data-status"))!;
}

async function select(id: string) {
  await node(id).locator(".cf-node-head").click();
  await page.locator(`.cf-inspector[data-node="${id}"]`).waitFor();
}

/** Closes every tab (one editor at a time keeps the locators simple), discarding unsaved changes. */
async function closeAll() {
  void page.evaluate(() => (window as any).jupyterapp.shell.closeAll());
  const discard = page.locator(".jp-Dialog button", { hasText: "Discard" });
  while (
    await discard.waitFor({ timeout: 3_000 }).then(
      () => true,
      () => false,
    )
  )
    await discard.click();
  await expect.poll(() => page.locator(".jp-Document").count()).toBe(0);
}

/** Drags from one port handle to another with the mouse, as a user would. */
/** Drags from an output port to an input port; `over` runs with the pointer over the target, before release. */
async function dragPort(from: string, to: string, over?: () => Promise<void>) {
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

const undo = () => page.evaluate(() => (window as any).jupyterapp.commands.execute("citeflow:undo"));

/** The minimap's dimming outside the view, as RGBA at its top-left corner. */
const minimapDim = () => page.locator(".cf-editor canvas.cf-minimap-view").evaluate((c: HTMLCanvasElement) => Array.from(c.getContext("2d")!.getImageData(1, 1, 1, 1).data));

/** The connection-state classes of a port handle (`node.port`, an output or an input). */
const portState = (ref: string, type: "source" | "target") => {
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
async function expectReadable() {
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

describe("Citeflow in JupyterLab (Chromium)", () => {
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    work = mkdtempSync(join(tmpdir(), "citeflow-lab-"));
    const { store } = await smallSciFactStore(300);
    ({ lab, ctx, page, problems } = await labSession(work, {
      CITEFLOW_STORE: store,
      CITEFLOW_RUNS: join(work, "runs"),
      CITEFLOW_MODELS: MODELS,
      CITEFLOW_NLI_MODEL: "pair-nli-scifact",
      CITEFLOW_RERANK_MODEL: "pair-rerank-scifact",
    }));
  }, 240_000);

  afterEach(async (t) => {
    if (t.task.result?.state === "fail" && page) await shot(`failed-${t.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, "-")}`);
  });

  afterAll(async () => {
    await ctx?.close();
    await lab?.stop();
    await llm?.close();
  }, 60_000);

  it("opens the Verif.ai template from the launcher", async () => {
    await page.locator(".jp-LauncherCard", { hasText: "Template: Verif.ai" }).click();
    await node("verify").waitFor({ timeout: 60_000 });
    await page.locator('.cf-palette-item[data-type="retrieve.hybrid"]').waitFor();
    expect(await page.locator(".cf-editor .react-flow__node").count()).toBe(8);
    expect(readFileSync(join(work, "root", "verifai.citeflow.json"), "utf8")).toContain('"name": "Verif.ai"');
    await shot("01-verifai-open");

    // It opens legible: every node title, type and port label in view renders at 9.5 px or more
    // (font size × the view's zoom) in this 1600×1000 window, and the pipeline's start is in view.
    const editor = page.locator(".cf-editor");
    await expect.poll(() => editor.locator(".react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a)).toBeGreaterThanOrEqual(0.9);
    const sizes = await editor.evaluate((root) => {
      const pane = root.querySelector(".react-flow")!.getBoundingClientRect();
      const zoom = new DOMMatrix(getComputedStyle(root.querySelector(".react-flow__viewport")!).transform).a;
      const inView = (r: DOMRect) => r.right > pane.left && r.left < pane.right && r.bottom > pane.top && r.top < pane.bottom;
      return [...root.querySelectorAll(".cf-node-id, .cf-node-type, .cf-port-label")].filter((e) => inView(e.getBoundingClientRect())).map((e) => parseFloat(getComputedStyle(e).fontSize) * zoom);
    });
    expect(sizes.length).toBeGreaterThan(6);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(9.5);
    const pane = (await editor.locator(".react-flow").boundingBox())!;
    const first = (await node("question").boundingBox())!;
    expect(first.x).toBeGreaterThanOrEqual(pane.x);
    expect(first.x + first.width).toBeLessThanOrEqual(pane.x + pane.width);

    // Both side panels fold to a strip, and the canvas takes the room.
    await editor.locator('[data-action="fold-left"]').click();
    await editor.locator('[data-action="fold-right"]').click();
    expect((await editor.locator(".react-flow").boundingBox())!.width).toBeGreaterThan(pane.width + 500);
    await shot("01-verifai-folded");
    await editor.locator('[data-action="unfold-left"]').click();
    await editor.locator('[data-action="unfold-right"]').click();
    await page.locator('.cf-palette-item[data-type="retrieve.hybrid"]').waitFor();
    // The rest of this suite works on the whole graph at once, as the fit-view control shows it.
    await editor.locator(".react-flow__controls-fitview").click();
    await expect.poll(() => editor.locator(".react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a)).toBeLessThan(0.9);
  }, 120_000);

  it("drags a node from the palette, connects ports, and refuses an incompatible connection", async () => {
    const canvas = await page.locator(".cf-editor .react-flow__pane").boundingBox();
    await page.dragAndDrop('.cf-palette-item[data-type="list.select"]', ".cf-editor .react-flow__pane", { targetPosition: { x: canvas!.width / 2, y: canvas!.height - 60 } });
    await node("select").waitFor();
    // While a connection is drawn, the ports show where it starts and whether it may end where it is.
    await dragPort("question.question", "select.items", async () => {
      expect(await portState("question.question", "source")).toEqual(["connectingfrom"]);
      expect(await portState("select.items", "target")).toEqual(["connectingto", "connectionindicator"]);
      // Strict mode: another output cannot end the connection.
      expect(await portState("retrieve.passages", "source")).toEqual([]);
      await shot("02-refused");
    });
    await expect.poll(() => page.locator(".cf-refusal").textContent()).toContain("Question cannot flow into T[]");
    expect(await portState("select.items", "target")).toEqual(["connectionindicator"]);
    const edges = page.locator(".cf-editor .react-flow__edge");
    const before = await edges.count();
    await dragPort("retrieve.passages", "select.items", async () => {
      expect(await portState("select.items", "target")).toEqual(["connectingto", "valid", "connectionindicator"]);
    });
    await expect.poll(() => edges.count()).toBe(before + 1);
    await shot("03-connected");
    // The same connection by clicking one port, then the other.
    await undo();
    await expect.poll(() => edges.count()).toBe(before);
    await node("retrieve").locator('.react-flow__handle.source[data-handleid="passages"]').click();
    await node("select").locator('.react-flow__handle.target[data-handleid="items"]').click();
    await expect.poll(() => edges.count()).toBe(before + 1);
    // Click an edge to select it, Shift-click another to add it; Delete removes both, undo brings them back.
    const edge = page.locator('.cf-editor .cf-edge[data-id="retrieve.passages->select.items"]');
    const other = page.locator(".cf-editor .cf-edge").first();
    const clickEdge = async (e: typeof edge, modifiers: "Shift"[] = []) => {
      const mid = await e.locator(".react-flow__edge-path").evaluate((p: SVGPathElement) => {
        const at = p.getPointAtLength(p.getTotalLength() / 2);
        const m = p.getScreenCTM()!;
        return { x: at.x * m.a + at.y * m.c + m.e, y: at.x * m.b + at.y * m.d + m.f };
      });
      for (const k of modifiers) await page.keyboard.down(k);
      await page.mouse.click(mid.x, mid.y);
      for (const k of modifiers) await page.keyboard.up(k);
    };
    await clickEdge(edge);
    await expect.poll(() => edge.getAttribute("class")).toContain("selected");
    await clickEdge(other, ["Shift"]);
    await expect.poll(() => page.locator(".cf-editor .cf-edge.selected").count()).toBe(2);
    await page.keyboard.press("Delete");
    await expect.poll(() => edges.count()).toBe(before - 1);
    await undo();
    await expect.poll(() => edges.count()).toBe(before + 1);
    // Undo removes the edge and the node; the file follows.
    await undo();
    await undo();
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(8);
  }, 60_000);

  it("moves a node with the mouse: the file follows, undo puts it back", async () => {
    const headX = async () => (await node("top").locator(".cf-node-head").boundingBox())!.x;
    await page.keyboard.press("Control+s");
    await expect.poll(() => uiOf("top").x).toBeTypeOf("number");
    const before = uiOf("top");
    // An edge from the moved node is redrawn with it.
    const path = page.locator('.cf-editor .cf-edge[data-id^="top."] .react-flow__edge-path').first();
    const d = await path.getAttribute("d");
    expect(d).toMatch(/^M/);
    const head = (await node("top").locator(".cf-node-head").boundingBox())!;
    await page.mouse.move(head.x + 10, head.y + 5);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(head.x + 10 + i * 6, head.y + 5 + i * 3);
    await page.mouse.up();
    // The node follows the pointer (React Flow starts the drag once the pointer has moved past its threshold).
    await expect.poll(headX).toBeGreaterThan(head.x + 40);
    expect(await path.getAttribute("d")).not.toBe(d);
    await page.keyboard.press("Control+s");
    await expect.poll(() => uiOf("top").x).toBeGreaterThan(before.x);
    expect(uiOf("top").y).toBeGreaterThan(before.y);
    await undo();
    await expect.poll(headX).toBeCloseTo(head.x, 0);
    await expect.poll(() => path.getAttribute("d")).toBe(d);
    await page.keyboard.press("Control+s");
    await expect.poll(() => uiOf("top")).toEqual(before);

    // Past the pane's left edge the view pans under the node, which stays under the pointer, also
    // when the pointer moves along the edge; the drop lands far left in the file, one undo step.
    const editor = page.locator(".cf-editor");
    const pane = (await editor.locator(".react-flow").boundingBox())!;
    const x0 = await viewX(editor);
    const grip = { x: head.x + 10, y: head.y + 5 };
    const gap = async (x: number, y: number) => {
      const b = (await node("top").locator(".cf-node-head").boundingBox())!;
      return [b.x + 10 - x, b.y + 5 - y];
    };
    await page.mouse.move(grip.x, grip.y);
    await page.mouse.down();
    // The first move past React Flow's threshold starts the drag without moving the node: the node
    // then keeps this gap to the pointer.
    await page.mouse.move(grip.x - 4, grip.y);
    const [gx, gy] = await gap(grip.x - 4, grip.y);
    for (let i = 1; i <= 10; i++) await page.mouse.move(grip.x - 4 + ((pane.x - 16 - grip.x) * i) / 10, grip.y);
    await expect.poll(() => viewX(editor)).toBeGreaterThan(x0 + 150);
    await page.mouse.move(pane.x - 20, grip.y + 30);
    const under = async () => {
      const [x, y] = await gap(pane.x - 20, grip.y + 30);
      return Math.max(Math.abs(x - gx), Math.abs(y - gy));
    };
    await expect.poll(under).toBeLessThan(1);
    // A move and the release in one task, before any frame: the held-back move still reaches the
    // drag, so the node lands where the pointer was released.
    const drop = { x: pane.x - 20, y: grip.y + 70 };
    await page.evaluate(({ x, y }) => {
      const at = { clientX: x, clientY: y, bubbles: true, cancelable: true, view: window };
      window.dispatchEvent(new MouseEvent("mousemove", { ...at, buttons: 1 }));
      window.dispatchEvent(new MouseEvent("mouseup", at));
    }, drop);
    await page.mouse.up();
    expect(Math.abs((await gap(drop.x, drop.y))[1] - gy)).toBeLessThan(1);
    const panned = await viewX(editor);
    await page.waitForTimeout(200);
    expect(await viewX(editor)).toBe(panned);
    await expect.poll(() => saveAnd(() => uiOf("top").x)).toBeLessThan(before.x - 150);
    await undo();
    await expect.poll(() => saveAnd(() => uiOf("top"))).toEqual(before);
  }, 60_000);

  it("selects several nodes (Ctrl-click, Shift-drag box, Ctrl+A), drags them together as one undo entry, cuts, copies and pastes them", async () => {
    const count = page.locator(".cf-editor .cf-selection-count");
    const nodes = page.locator(".cf-editor .react-flow__node");
    const picked = page.locator(".cf-editor .react-flow__node.selected");
    await node("top").locator(".cf-node-head").click();
    await node("papers")
      .locator(".cf-node-head")
      .click({ modifiers: ["Control"] });
    await expect.poll(() => count.getAttribute("data-count")).toBe("2");
    expect(await selectedIds()).toEqual(["papers", "top"]);

    // Dragging one selected node moves both; the file gets both, and one undo puts both back.
    await page.keyboard.press("Control+s");
    const before = { top: uiOf("top"), papers: uiOf("papers") };
    const head = (await node("top").locator(".cf-node-head").boundingBox())!;
    await page.mouse.move(head.x + 10, head.y + 5);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(head.x + 10 + i * 6, head.y + 5 + i * 3);
    await page.mouse.up();
    // The document edit lands a frame after the drop: save until the file has it.
    await expect.poll(() => saveAnd(() => uiOf("top").x)).toBeGreaterThan(before.top.x);
    const dx = uiOf("top").x - before.top.x;
    expect(uiOf("papers").x - before.papers.x).toBe(dx);
    expect(uiOf("papers").y - before.papers.y).toBe(uiOf("top").y - before.top.y);
    await undo();
    await expect.poll(() => saveAnd(() => [uiOf("top"), uiOf("papers")])).toEqual([before.top, before.papers]);
    // An arrow key moves the selection by 5 px (with the focus on one of its nodes).
    await node("top").focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => saveAnd(() => [uiOf("top").x, uiOf("papers").x])).toEqual([before.top.x + 5, before.papers.x + 5]);
    await undo();
    await expect.poll(() => saveAnd(() => [uiOf("top"), uiOf("papers")])).toEqual([before.top, before.papers]);

    // Copy and paste both: the copies (with the edge between them) become the selection.
    const edges = await page.locator(".cf-editor .cf-edge").count();
    // Ctrl-click takes a selected node out of the selection, and puts it back.
    await node("top")
      .locator(".cf-node-head")
      .click({ modifiers: ["Control"] });
    await expect.poll(() => picked.count()).toBe(1);
    await node("top")
      .locator(".cf-node-head")
      .click({ modifiers: ["Control"] });
    await expect.poll(() => count.getAttribute("data-count")).toBe("2");
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await expect.poll(() => nodes.count()).toBe(10);
    await expect.poll(() => page.locator(".cf-editor .cf-edge").count()).toBe(edges + 1);
    expect(await selectedIds()).toEqual(["per_paper", "select"]);
    await page.keyboard.press("Control+x");
    await expect.poll(() => nodes.count()).toBe(8);
    await undo();
    await expect.poll(() => nodes.count()).toBe(10);
    await undo();
    await expect.poll(() => nodes.count()).toBe(8);

    // Ctrl+A takes every node; a click on the pane clears the selection.
    await node("top").locator(".cf-node-head").click();
    await page.keyboard.press("Control+a");
    await expect.poll(() => count.getAttribute("data-count")).toBe("8");
    await expect.poll(() => picked.count()).toBe(8);
    const pane = (await page.locator(".cf-editor .react-flow__pane").boundingBox())!;
    await page.mouse.click(pane.x + 5, pane.y + 5);
    await expect.poll(() => picked.count()).toBe(0);

    // A box drawn with Shift held selects the nodes wholly inside it.
    const box = (await node("top").boundingBox())!;
    // It starts away from the pane's borders, where a selection drag would pan the view.
    const start = { x: pane.x + 60, y: pane.y + 60 };
    const end = { x: box.x + box.width + 5, y: box.y + box.height + 5 };
    await page.keyboard.down("Shift");
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(start.x + ((end.x - start.x) * i) / 10, start.y + ((end.y - start.y) * i) / 10);
    await page.mouse.up();
    await page.keyboard.up("Shift");
    await expect.poll(selectedIds).toContain("top");
    // The box selects nodes, not the page's text.
    expect(await page.evaluate(() => window.getSelection()?.type)).not.toBe("Range");
    const inBox = await picked.count();
    if (inBox > 1) expect(await count.getAttribute("data-count")).toBe(String(inBox));
    await shot("04b-multi-select");
    await page.mouse.click(pane.x + 5, pane.y + 5);
    await expect.poll(() => picked.count()).toBe(0);
  }, 60_000);

  it("offers the node and canvas commands in JupyterLab's context menu", async () => {
    const picked = page.locator(".cf-editor .react-flow__node.selected");
    const menu = page.locator(".lm-Menu");
    const item = (label: string) => menu.locator(".lm-Menu-item", { hasText: label });
    const openOn = async (target: ReturnType<typeof node>) => {
      await target.click({ button: "right" });
      await menu.waitFor();
    };

    // A right-click on a node selects it alone; the run commands need a question first.
    await openOn(node("papers").locator(".cf-node-head"));
    await expect.poll(selectedIds).toEqual(["papers"]);
    expect(await item("Run to Selected Node").getAttribute("class")).toContain("lm-mod-disabled");
    await item("Toggle Breakpoint").click();
    await node("papers").locator(".cf-breakpoint").waitFor();
    await openOn(node("papers").locator(".cf-node-head"));
    expect(await item("Toggle Breakpoint").getAttribute("class")).toContain("lm-mod-toggled");
    await item("Toggle Breakpoint").click();
    await expect.poll(() => node("papers").locator(".cf-breakpoint").count()).toBe(0);

    // On the empty canvas: paste, select all, auto-layout. A right-click inside the selection keeps it.
    const pane = (await page.locator(".cf-editor .react-flow__pane").boundingBox())!;
    await page.mouse.click(pane.x + 60, pane.y + 60, { button: "right" });
    await item("Select All Nodes").waitFor();
    expect(await item("Run to Selected Node").count()).toBe(0);
    await item("Select All Nodes").click();
    await expect.poll(() => picked.count()).toBe(8);
    await openOn(node("top").locator(".cf-node-head"));
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(".cf-editor .cf-selection-count").textContent()).toContain("showing top");
    expect(await picked.count()).toBe(8);

    // Delete from the menu, then undo.
    await page.mouse.click(pane.x + 60, pane.y + 60);
    await openOn(node("citations").locator(".cf-node-head"));
    await shot("04c-context-menu");
    await item("Delete Selected Nodes").click();
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(7);
    await undo();
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(8);
    await page.mouse.click(pane.x + 60, pane.y + 60);
    await expect.poll(() => picked.count()).toBe(0);
  }, 60_000);

  it("shows the graph in the minimap with the selected node highlighted, and pans the canvas when the minimap is dragged", async () => {
    const minimap = page.locator(".cf-editor .cf-minimap canvas.cf-minimap-nodes");
    // Pixels drawn: the selected node in blue, the others in grey.
    const drawn = () =>
      minimap.evaluate((c: HTMLCanvasElement) => {
        const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
        let grey = 0;
        let blue = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i + 3]! > 0) d[i + 2]! > d[i]! + 60 ? blue++ : grey++;
        return { grey, blue };
      });
    const deselect = () => page.locator(".cf-editor .react-flow__pane").click({ position: { x: 5, y: 5 } });
    await deselect();
    // The view's frame is drawn on its own canvas over the nodes, the rest dimmed in the theme's colour.
    expect(await minimapDim()).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), 115]);
    expect((await minimapDim())[0]).toBeGreaterThan(150);
    await expect.poll(drawn).toEqual({ grey: expect.any(Number), blue: 0 });
    expect((await drawn()).grey).toBeGreaterThan(0);
    await select("verify");
    await expect.poll(async () => (await drawn()).blue).toBeGreaterThan(0);
    const panX = () => page.locator(".cf-editor .react-flow__viewport").evaluate((e) => new DOMMatrix(getComputedStyle(e).transform).e);
    const before = await panX();
    const box = (await minimap.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + box.width / 2 + i * 3, box.y + box.height / 2);
    await page.mouse.up();
    // Dragging the minimap's window right moves the view right over the graph.
    await expect.poll(panX).toBeLessThan(before - 10);
    await shot("03b-minimap");
    await page.locator(".cf-editor .react-flow__controls-fitview").click();
    await deselect();
  }, 60_000);

  it("changes a param through the generated form and saves a stable file", async () => {
    await select("top");
    await page.locator('.cf-inspector input[name="limit"]').fill("4");
    await page.keyboard.press("Control+s");
    await expect.poll(() => savedNode("top").params.limit).toBe(4);
  }, 30_000);

  it("runs on a question with live badges, then inspects passages, sorts by a score, follows a citation", async () => {
    await page.locator(".cf-question").fill(QUESTION);
    expect(await runBy(() => page.locator('[data-action="run"]').click())).toBe("ok");
    for (const id of ["question", "retrieve", "papers", "top", "answer", "claims", "verify", "citations"]) await expect.poll(() => badge(id).getAttribute("data-status")).toMatch(/^(done|cached)$/);
    await shot("04-run-done");
    // Each card says what its node produced, in one line.
    const summary = (id: string) => node(id).locator(".cf-node-summary").textContent();
    expect(await summary("retrieve")).toMatch(/^\d+ passages · top fused [\d.]+$/);
    expect(await summary("top")).toMatch(/^\d+ passages · top /);
    expect(await summary("answer")).toMatch(/^answer · \d+ citations? · 0 hallucinated$/);
    expect(await summary("verify")).toMatch(/^(\d+ (SUPPORT|CONTRADICT|NO_EVIDENCE|NO_REFERENCE)( · )?)+$/);
    // The status in words, the run's id a link to it in the Runs tab.
    const status = page.locator(".cf-run-status");
    expect(await status.textContent()).toMatch(/^Done in \d+(\.\d)? m?s · run [0-9a-f]+$/);
    await status.locator('[data-action="show-run"]').click();
    await expect.poll(() => page.locator('.cf-editor .cf-tabs [aria-selected="true"]').textContent()).toBe("Runs");
    await page.locator(".cf-editor .cf-tabs button", { hasText: "Node" }).click();

    await select("retrieve");
    const table = page.locator('.cf-inspector .cf-output[data-port="passages"] table');
    await table.waitFor();
    await table.locator('th[data-sort="bm25"]').click();
    const scores = (await table.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.querySelectorAll("td")))).length;
    expect(scores).toBeGreaterThan(1);
    const col = await table.locator("thead th").evaluateAll((ths) => ths.findIndex((th) => th.getAttribute("data-sort") === "bm25"));
    const values = await table.locator("tbody tr").evaluateAll((rows, c) => rows.map((r) => Number(r.querySelectorAll("td")[c]?.textContent || "NaN")).filter((v) => !Number.isNaN(v)), col);
    expect(values.length).toBeGreaterThan(1);
    expect([...values].sort((a, b) => b - a)).toEqual(values);
    await expect.poll(() => page.locator(".cf-inspector mark").count()).toBeGreaterThan(0);
    await shot("05-passages-sorted");

    await select("answer");
    const cite = page.locator(".cf-inspector .cf-cite[data-passage]").first();
    await cite.waitFor();
    const target = await cite.getAttribute("data-passage");
    const where = () => Promise.all([page.locator('[data-action="run"]').boundingBox(), page.locator(".cf-editor .react-flow__pane").boundingBox()]);
    const editorAt = await where();
    await cite.click();
    await expect(page.locator(`.cf-inspector tr.cf-focus[data-passage="${target}"]`).count()).resolves.toBe(1);
    // The cited passage is shown whole below the table: its text uncut (the editor has the whole
    // value), its metadata and every score.
    const detail = page.locator(`.cf-inspector .cf-passage-detail[data-passage="${target}"]`);
    await detail.waitFor();
    const whole = (await detail.locator(".cf-passage-full").textContent()) ?? "";
    expect(whole.length).toBeGreaterThan(400);
    expect(whole.endsWith("…")).toBe(false);
    expect(await detail.locator(".cf-preview-note").count()).toBe(0);
    expect(await detail.locator(`[data-meta="source"]`).textContent()).toContain("scifact");
    expect(await detail.locator("[data-score]").count()).toBeGreaterThan(0);
    // Brought into view by scrolling the side panel alone: the editor stays where it was.
    expect(await where()).toEqual(editorAt);
    await shot("06-citation-followed");
    await detail.locator(".cf-close").click();
    expect(await detail.count()).toBe(0);

    // The README's picture (docs/images/editor.png): the verdicts beside the end of the pipeline,
    // zoomed in with the wheel over the verify node, as a user would; then the whole graph again.
    await select("verify");
    await page.locator('.cf-inspector .cf-output[data-port="verdicts"]').waitFor();
    const v = (await node("verify").boundingBox())!;
    await page.mouse.move(v.x + v.width / 2, v.y + v.height / 2);
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -100);
    await expect.poll(() => page.locator(".cf-editor .react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a)).toBeGreaterThan(0.8);
    await page.waitForTimeout(300);
    await shot("readme-editor");
    await page.locator(".cf-editor .react-flow__controls-fitview").click();
  }, 120_000);

  it("runs to a node, edits an intermediate value and re-runs only downstream", async () => {
    await select("papers");
    expect(await runBy(() => page.locator('[data-action="run-to"]').click())).toBe("ok");
    await expect.poll(() => badge("papers").getAttribute("data-status")).toMatch(/^(done|cached)$/);
    expect(await badge("verify").count()).toBe(0);

    expect(await runBy(() => page.locator('[data-action="run"]').click())).toBe("ok");
    await select("top");
    await page.locator('.cf-inspector .cf-output[data-port="items"] .cf-raw-toggle input').check();
    await page.locator('.cf-inspector .cf-output[data-port="items"] button', { hasText: "Edit value" }).click();
    const edit = page.locator(".cf-inspector .cf-json-edit");
    const value = JSON.parse(await edit.inputValue()) as unknown[];
    await edit.fill(JSON.stringify(value.slice(0, 1)));
    expect(await runBy(() => page.locator(".cf-inspector button", { hasText: "Apply and re-run downstream" }).click())).toBe("ok");
    await expect.poll(() => badge("retrieve").getAttribute("data-status")).toBe("cached");
    await expect.poll(() => badge("answer").getAttribute("data-status")).toBe("done");
    await shot("07-override-rerun");
  }, 120_000);

  it("diffs two runs side by side", async () => {
    await page.locator(".cf-tabs button", { hasText: "Runs" }).click();
    const rows = page.locator(".cf-runs tbody tr");
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3);
    await rows.nth(0).locator("input[type=checkbox]").check();
    await rows.nth(1).locator("input[type=checkbox]").check();
    await page.locator(".cf-runs button", { hasText: "Diff" }).click();
    await page.locator('.cf-diff tr[data-diff-node="top"]').waitFor();
    expect(await page.locator(".cf-diff tr.cf-diff-changed").count()).toBeGreaterThan(0);
    await page.locator('.cf-metrics tr[data-metric="citations.f1"]').waitFor();
    // A node opened from the diff shows its outputs from both runs side by side, through the
    // inspector for their type; the port that differs comes first and says so.
    const answerRow = page.locator('.cf-diff tr[data-diff-node="answer"]');
    expect(await answerRow.locator("td").nth(3).textContent()).toContain("answer");
    await answerRow.locator("button").click();
    const sides = page.locator('.cf-side-by-side[data-node="answer"] .cf-side-port').first();
    await sides.locator('.cf-side[data-side="b"] .cf-answer').waitFor();
    expect(await sides.getAttribute("data-port")).toBe("answer");
    expect(await sides.getAttribute("data-differs")).toBe("true");
    const [a, b] = await Promise.all(["a", "b"].map((side) => sides.locator(`.cf-side[data-side="${side}"] .cf-answer-text`).textContent()));
    expect(a).toBeTruthy();
    expect(a).not.toBe(b);
    // and the two texts as one word diff, A → B.
    expect(await sides.locator(".cf-diff-text").locator("ins, del").count()).toBeGreaterThan(0);
    await shot("08-diff");
    // Against the run that stopped at "papers" (the third newest), B has no answer and says why.
    await rows.nth(1).locator("input[type=checkbox]").uncheck();
    await rows.nth(2).locator("input[type=checkbox]").check();
    await page.locator(".cf-runs button", { hasText: "Diff" }).click();
    await expect.poll(() => page.locator(".cf-diff h4").first().textContent()).toContain((await rows.nth(2).getAttribute("data-run"))!);
    await page.locator('.cf-diff tr[data-diff-node="answer"] button').click();
    await sides.locator('.cf-side[data-side="a"] .cf-answer').waitFor();
    expect(await sides.locator('.cf-side[data-side="b"]').textContent()).toMatch(/answer/);
    expect(await sides.locator('.cf-side[data-side="b"] .cf-answer').count()).toBe(0);
    expect(await sides.locator(".cf-diff-mark").textContent()).toBe("only in A");
    await shot("08b-diff-missing-side");
    // Export this graph's runs as NLI pairs: files and card written where the form says.
    await page.locator(".cf-export summary").click();
    await page.locator('.cf-export select[name="format"]').selectOption("nli");
    await page.locator(".cf-export button[type=submit]").click();
    const done = page.locator(".cf-export .cf-notice[data-export]");
    await done.waitFor({ timeout: 30_000 });
    const out = (await done.getAttribute("data-export"))!;
    expect(out).toBe(join(work, "root", "datasets", "verif-ai-nli"));
    const train = readFileSync(join(out, "train.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(train.length).toBeGreaterThan(0);
    expect(Object.keys(train[0]).sort()).toEqual(["hypothesis", "label", "label_id", "metadata", "premise"]);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("nli");
    await shot("09-export");
  }, 60_000);

  it("steps node by node, stops at a breakpoint, and copies, pastes and undoes with the keyboard", async () => {
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    const status = page.locator(".cf-run-status");
    const before = await status.getAttribute("data-run");
    await page.locator('[data-action="step"]').click();
    await expect.poll(async () => (await status.getAttribute("data-run")) !== before && (await status.getAttribute("data-status")) === "paused").toBe(true);
    const first = await status.textContent();
    expect(first).toContain("Paused before question");
    await page.locator('[data-action="step"]').click();
    await expect.poll(() => status.textContent()).toContain("Paused before retrieve");
    expect(await badge("question").getAttribute("data-status")).toMatch(/^(done|cached)$/);
    await shot("10-stepping");
    await page.locator('[data-action="continue"]').click();
    await expect.poll(() => status.getAttribute("data-status")).toBe("ok");

    await select("answer");
    await page.locator('[data-action="breakpoint"]').click();
    await node("answer").locator(".cf-breakpoint").waitFor();
    const run = await status.getAttribute("data-run");
    await page.locator('[data-action="run"]').click();
    await expect.poll(async () => (await status.getAttribute("data-run")) !== run && (await status.textContent())?.includes("Paused before answer")).toBe(true);
    expect(await badge("verify").getAttribute("data-status")).toBe("queued");
    await page.locator('[data-action="continue"]').click();
    await expect.poll(() => status.getAttribute("data-status")).toBe("ok");
    await page.locator('[data-action="breakpoint"]').click();

    await node("top").locator(".cf-node-head").click();
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(9);
    await node("select").waitFor();
    await page.keyboard.press("Control+z");
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(8);
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(9);
    await page.keyboard.press("Control+z");
    await expect.poll(() => page.locator(".cf-editor .react-flow__node").count()).toBe(8);
  }, 120_000);

  it("records a verdict correction, inspects a port, and follows the dark theme", async () => {
    const runId = (await page.locator(".cf-run-status").getAttribute("data-run"))!;
    await select("verify");
    const correct = page.locator('.cf-inspector select[aria-label="Correct the verdict"]').first();
    await correct.waitFor();
    const label = await correct.locator("option").nth(1).getAttribute("value");
    await correct.selectOption(label!);
    await expect.poll(() => page.locator(".cf-inspector .cf-notice").textContent()).toContain("Correction recorded");
    const corrections = () =>
      readFileSync(join(work, "runs", "corrections", `${runId}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
    const stored = corrections();
    expect(stored.at(-1)).toMatchObject({ kind: "verdict", nodeId: "verify", label });

    await node("retrieve").locator('.cf-port-label[data-port="passages"]').click();
    const port = page.locator('.cf-inspector[data-node="retrieve"] .cf-output.cf-port-focus[data-port="passages"]');
    await port.waitFor();
    // A passage read whole, then judged: the relevance correction is stored beside the run.
    const second = port.locator(".cf-passages tbody tr[data-passage]").nth(1);
    const passageId = await second.getAttribute("data-passage");
    await second.locator(".cf-passage-text").click();
    await port.locator(`.cf-passage-detail[data-passage="${passageId}"] button[data-relevant="false"]`).click();
    await expect.poll(() => corrections().length).toBe(stored.length + 1);
    expect(corrections().at(-1)).toMatchObject({ kind: "relevance", nodeId: "retrieve", passageId, relevant: false });

    // A theme change shows JupyterLab's splash and removes it 200 ms after the theme loads. A second
    // change inside that window makes JupyterLab remove the splash twice, a page error
    // ("removeChild ... not a child of this node"), so each change waits for the splash to go.
    const splashGone = () => expect.poll(() => page.locator("#jupyterlab-splash").count(), { timeout: 10_000 }).toBe(0);
    await page.evaluate(() => (window as any).jupyterapp.commands.execute("apputils:change-theme", { theme: "JupyterLab Dark" }));
    await expect.poll(() => page.locator("body").getAttribute("data-jp-theme-light")).toBe("false");
    await splashGone();
    const bg = await page.locator(".cf-editor").evaluate((el) => getComputedStyle(el).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g)!.map(Number);
    expect(r! + g! + b!).toBeLessThan(3 * 100);
    await expect.poll(async () => (await minimapDim())[0]).toBeLessThan(128);
    await expectReadable();
    await shot("10-dark-theme");
    await page.evaluate(() => (window as any).jupyterapp.commands.execute("apputils:change-theme", { theme: "JupyterLab Light" }));
    await expect.poll(() => page.locator("body").getAttribute("data-jp-theme-light")).toBe("true");
    await splashGone();
    await expectReadable();
  }, 60_000);

  it("shows a Citeflow run in a notebook output with the inspector", async () => {
    await page.evaluate(() => void (window as any).jupyterapp.commands.execute("notebook:create-new", { kernelName: "citeflow" }));
    const cell = page.locator(".jp-NotebookPanel .jp-Cell .cm-content").first();
    await cell.waitFor({ timeout: 60_000 });
    // A cell run before the kernel is up is dropped by JupyterLab: wait for an idle kernel first.
    await expect.poll(() => page.evaluate(() => (window as any).jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status), { timeout: 90_000 }).toBe("idle");
    await cell.click();
    await page.keyboard.type(`import { run } from "citeflow";\nawait run("verifai", ${JSON.stringify(QUESTION)})`);
    await page.keyboard.press("Shift+Enter");
    // One output for the run: its live display, which ends as the whole run view; the cell's value
    // (the same run) adds no second copy.
    const outputs = page.locator(".jp-NotebookPanel .jp-Cell").first().locator(".jp-OutputArea-child");
    const view = outputs.locator(".cf-run-view");
    await expect.poll(() => view.getAttribute("data-status"), { timeout: 120_000 }).toBe("ok");
    await expect.poll(() => page.evaluate(() => (window as any).jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status)).toBe("idle");
    expect(await outputs.count()).toBe(1);
    // Each node's output in one line.
    expect(await view.locator('tr[data-node="retrieve"] .cf-node-summary').textContent()).toMatch(/^\d+ passages · top \w+ [\d.]+$/);
    await view.locator('tr[data-node="retrieve"] button').click();
    await view.locator(".cf-passages table").waitFor();
    // The output carries each passage's text cut to 400 characters, and says so when it shows one.
    const first = view.locator(".cf-passages tbody tr[data-passage]").first();
    await first.locator(".cf-passage-title").click();
    const detail = view.locator(`.cf-passage-detail[data-passage="${await first.getAttribute("data-passage")}"]`);
    expect(await first.locator(".cf-passage-title").getAttribute("aria-expanded")).toBe("true");
    expect((await detail.locator(".cf-passage-full").textContent())?.length).toBe(401);
    await detail.locator(".cf-preview-note").waitFor();
    await shot("11-notebook-passage");
    // "Open in pipeline editor": the run's graph in a new file, the run's badges on it.
    await view.locator("button", { hasText: "Open in pipeline editor" }).click();
    const opened = page.locator(".jp-Document:not(.lm-mod-hidden) .cf-editor");
    await expect.poll(() => opened.locator('.react-flow__node[data-id="verify"] .cf-badge').getAttribute("data-status"), { timeout: 60_000 }).toMatch(/^(done|cached)$/);
    expect(readFileSync(join(work, "root", "verif-ai.citeflow.json"), "utf8")).toContain('"name": "Verif.ai"');
    await shot("11-notebook-open-in-editor");
  }, 180_000);

  it("shows OpenScholar's self-feedback loop as an iteration tree with each edit's before/after diff", async () => {
    // A loopback OpenAI-compatible server for the loop node only: two feedback items, the first
    // asking for a retrieval; the first edit lengthens the answer (kept), the second cuts it (discarded).
    const longer = "Vitamin D supplementation lowers the risk of hip and non-vertebral fractures in older adults, most clearly when combined with calcium [0]. ".repeat(12);
    llm = await loopback((req, res) => {
      const user = String(req.body?.messages?.at(-1)?.content ?? "");
      if (user.startsWith("You review"))
        return json(res, 200, completion("Feedback: Add the evidence on older adults.\nQuestion: vitamin D fracture risk older adults\n\nFeedback: Be much shorter.\nQuestion: none"));
      return json(res, 200, completion(user.includes("Feedback: Add the evidence on older adults.") ? longer : "Short."));
    });
    await closeAll();
    await page.evaluate(() => void (window as any).jupyterapp.commands.execute("citeflow:new-from-template", { template: "openscholar" }));
    await node("feedback").waitFor({ timeout: 60_000 });
    await select("feedback");
    await page.locator('.cf-inspector input[name="model"]').fill("loopback-model");
    await page.locator('.cf-inspector input[name="baseUrl"]').fill(llm.url);
    await page.locator(".cf-question").fill(QUESTION);
    // A server the pipeline names but the user never configured: the editor asks first. Declined,
    // nothing runs and nothing is sent; allowed, the run goes.
    const dialog = page.locator(".jp-Dialog");
    await page.locator('[data-action="run"]').click();
    await dialog.waitFor();
    expect(await dialog.locator(".cf-consent li").allTextContents()).toEqual([`${llm.url} — node "feedback", baseUrl`]);
    await shot("12-allow-servers");
    await dialog.locator("button", { hasText: "Do not run" }).click();
    await expect.poll(() => page.locator(".cf-editor .cf-banner").textContent()).toContain(`Not run: the pipeline names servers you have not allowed (${llm.url})`);
    expect(llm.requests.length).toBe(0);
    expect(
      await runBy(async () => {
        await page.locator('[data-action="run"]').click();
        await dialog.locator("button", { hasText: "Allow and run" }).click();
      }),
    ).toBe("ok");
    await select("feedback");
    const tree = page.locator('.cf-inspector [data-view="feedback"] .cf-feedback-tree');
    await tree.waitFor({ timeout: 30_000 });
    expect(await tree.locator("> li").count()).toBe(2);
    await expect.poll(() => tree.locator('li[data-iteration="1"] .cf-feedback-retrieval').textContent()).toContain("vitamin D fracture risk older adults");
    expect(await tree.locator('li[data-iteration="1"] .cf-feedback-edit').getAttribute("data-kept")).toBe("true");
    expect(await tree.locator('li[data-iteration="1"] .cf-diff-text ins').count()).toBeGreaterThan(0);
    expect(await tree.locator('li[data-iteration="2"] .cf-feedback-edit').getAttribute("data-kept")).toBe("false");
    expect(llm.requests.length).toBe(3);
    await shot("12-self-feedback-tree");
  }, 180_000);

  it("lists the Citeflow settings (kernel, default question) in JupyterLab's Settings Editor", async () => {
    // (No search query: JupyterLab 4.5.10's plugin list marks matches with unkeyed <mark>s, which React warns about.)
    await page.evaluate(() => void (window as any).jupyterapp.commands.execute("settingeditor:open"));
    await page.locator(".jp-PluginList-entry", { has: page.getByText("Citeflow", { exact: true }) }).click({ timeout: 30_000 });
    await page.getByText("Default question", { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByText("Name of the kernelspec the pipeline editor starts", { exact: false }).waitFor();
    await shot("13-settings");
  }, 60_000);

  it("opens a pipeline from the file browser, runs a question set, and reverts to the file on disk", async () => {
    await closeAll();
    const graph = {
      citeflow: 1,
      name: "Question set",
      inputs: { questions: { type: "Question[]" } },
      nodes: [
        { id: "questions", type: "input.questions", version: 1, params: {}, ui: { x: 0, y: 0 } },
        { id: "first", type: "list.select", version: 1, params: { limit: 2 }, ui: { x: 300, y: 300 } },
      ],
      edges: [{ from: "questions.questions", to: "first.items" }],
    };
    const path = join(work, "root", "qset.citeflow.json");
    writeFileSync(path, JSON.stringify(graph, null, 2) + "\n");
    await page.evaluate(() => (window as any).jupyterapp.commands.execute("filebrowser:refresh"));
    await page.locator(".jp-DirListing-item", { hasText: "qset.citeflow.json" }).dblclick();
    await node("first").waitFor({ timeout: 60_000 });
    await page.locator("textarea.cf-question").fill("Does vitamin D prevent fractures?\nIs aspirin linked to bleeding?\nDo statins lower LDL?");
    expect(await runBy(() => page.locator('[data-action="run"]').click())).toBe("ok");
    await select("first");
    await page.locator('.cf-inspector .cf-output[data-port="items"]').waitFor();
    const shown = JSON.parse((await page.locator('.cf-inspector .cf-output[data-port="items"] pre').textContent())!);
    expect(shown.map((q: { text: string }) => q.text)).toEqual(["Does vitamin D prevent fractures?", "Is aspirin linked to bleeding?"]);

    // An edit makes the document dirty; reloading from disk brings the file's layout back.
    const offset = async () => (await node("first").boundingBox())!.y - (await node("questions").boundingBox())!.y;
    expect(await offset()).toBeGreaterThan(50);
    await page.locator('[data-action="layout"]').click();
    await expect.poll(offset).toBeLessThan(5);
    const tab = page.locator(".lm-TabBar-tab.jp-mod-current");
    await expect.poll(() => tab.getAttribute("class")).toContain("jp-mod-dirty");
    void page.evaluate(() => (window as any).jupyterapp.commands.execute("docmanager:reload"));
    const reload = page.locator(".jp-Dialog button", { hasText: "Reload" });
    if (
      await reload.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      )
    )
      await reload.click();
    await expect.poll(() => tab.getAttribute("class")).not.toContain("jp-mod-dirty");
    await expect.poll(offset).toBeGreaterThan(50);
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(graph, null, 2) + "\n");
  }, 120_000);

  it("refuses a broken file with each problem and where, writes nothing, and draws it once fixed", async () => {
    await closeAll();
    const path = join(work, "root", "broken.citeflow.json");
    const broken = JSON.stringify(
      {
        citeflow: 1,
        name: "broken",
        inputs: {},
        nodes: [
          { id: "a", type: "list.select", ui: { x: 0, y: 0 } },
          { id: "a", type: "list.select" },
        ],
        edges: [{ from: "a.items", to: "ghost.items" }],
      },
      null,
      2,
    );
    writeFileSync(path, broken);
    await page.evaluate(() => (window as any).jupyterapp.commands.execute("docmanager:open", { path: "broken.citeflow.json" }));
    const panel = page.locator(".jp-Document:not(.lm-mod-hidden) .cf-unreadable");
    await panel.waitFor({ timeout: 60_000 });
    expect((await panel.locator("pre").textContent())!.split("\n")).toEqual([
      "broken.citeflow.json: 2 problems",
      'nodes[1].id: "a" is also the id of nodes[0]',
      'edges[0].to: no node "ghost" in this graph',
    ]);
    expect(await page.locator(".jp-Document:not(.lm-mod-hidden) .react-flow").count()).toBe(0);
    expect(await page.locator('[data-action="run"]').isDisabled()).toBe(true);
    await shot("17-unreadable");
    // Nothing the editor does reaches the file: auto-layout (disabled), layout, undo, save.
    expect(await page.locator('[data-action="layout"]').isDisabled()).toBe(true);
    for (const command of ["citeflow:auto-layout", "citeflow:undo", "citeflow:select-all", "citeflow:paste"]) await page.evaluate((c) => (window as any).jupyterapp.commands.execute(c), command);
    await page.keyboard.press("Control+s");
    await page.waitForTimeout(500);
    expect(readFileSync(path, "utf8")).toBe(broken);
    // "Open in the text editor" opens the same file as text.
    await panel.locator("button", { hasText: "Open in the text editor" }).click();
    await page.locator(".jp-Document:not(.lm-mod-hidden) .jp-FileEditor").waitFor();
    // Fixed in the text editor (its model is the file's, shared with the pipeline editor): the
    // pipeline editor draws it at once; saved, it is on disk.
    const fixed = JSON.parse(broken);
    fixed.nodes[1].id = "b";
    fixed.edges[0].to = "b.items";
    const text = JSON.stringify(fixed, null, 2);
    // The current widget's file model (the text editor's here, the pipeline editor's below).
    const setText = (t: string) => page.evaluate((t) => (window as any).jupyterapp.shell.currentWidget.context.model.sharedModel.setSource(t), t);
    await setText(text);
    await expect.poll(() => saveAnd(() => readFileSync(path, "utf8"))).toBe(text);
    await page.evaluate(() => (window as any).jupyterapp.commands.execute("docmanager:open", { path: "broken.citeflow.json", factory: "Citeflow Pipeline Editor" }));
    await node("b").waitFor({ timeout: 30_000 });
    expect(await panel.count()).toBe(0);
    // The fix was the file's first read: nothing to undo. A later change underneath is one undo
    // entry: undo returns to the graph shown before it.
    await undo();
    await page.waitForTimeout(300);
    expect(await node("b").count()).toBe(1);
    await setText(JSON.stringify({ ...fixed, nodes: [...fixed.nodes, { id: "c", type: "list.select", ui: { x: 300, y: 0 } }] }, null, 2));
    await node("c").waitFor({ timeout: 30_000 });
    await undo();
    await node("c").waitFor({ state: "detached", timeout: 30_000 });
    expect(await node("b").count()).toBe(1);
  }, 120_000);

  it("pans under a node dragged past the pane's edge by touch, and stops when the touch ends", async () => {
    // A touch screen needs a browser started with touch: React Flow takes touch drags only there.
    const touch = await chromium.launch(CHROMIUM);
    try {
      const tab = await (await touch.newContext({ hasTouch: true, viewport: { width: 1600, height: 1000 } })).newPage();
      tab.on("console", (m) => m.type() === "error" && problems.push(`console (touch): ${m.text()}`));
      tab.on("pageerror", (e) => problems.push(`page error (touch): ${e.message}`));
      const nodes = [0, 1, 2].map((i) => ({ id: `t${i}`, type: "list.select", version: 1, params: { limit: 5 }, ui: { x: i * 260, y: 0 } }));
      writeFileSync(join(work, "root", "touch.citeflow.json"), JSON.stringify({ citeflow: 1, name: "touch", inputs: {}, nodes, edges: [] }, null, 2) + "\n");
      await tab.goto(lab.url);
      // The workspace opens what the other page left open: wait for JupyterLab to have restored it.
      await tab.waitForFunction(() => (window as any).jupyterapp, undefined, { timeout: 60_000 });
      await tab.evaluate(() => (window as any).jupyterapp.restored);
      await tab.evaluate(() => void (window as any).jupyterapp.commands.execute("docmanager:open", { path: "touch.citeflow.json" }));
      const editor = tab.locator(".jp-Document:not(.lm-mod-hidden) .cf-editor");
      const head = editor.locator('.react-flow__node[data-id="t0"] .cf-node-head');
      await head.waitFor({ timeout: 60_000 });
      const pane = (await editor.locator(".react-flow").boundingBox())!;
      const start = (await head.boundingBox())!;
      const x0 = await viewX(editor);
      const cdp = await tab.context().newCDPSession(tab);
      const at = (type: string, x = 0, y = 0) => cdp.send("Input.dispatchTouchEvent", { type, touchPoints: type === "touchEnd" ? [] : [{ x, y }] });
      const from = { x: start.x + 10, y: start.y + 5 };
      await at("touchStart", from.x, from.y);
      for (let i = 1; i <= 12; i++) await at("touchMove", from.x + ((pane.x - 20 - from.x) * i) / 12, from.y);
      await expect.poll(() => viewX(editor)).toBeGreaterThan(x0 + 150);
      await at("touchEnd");
      const ended = await viewX(editor);
      await tab.waitForTimeout(300);
      // A frame or two may still pan before the touch's end arrives, then nothing.
      const settled = await viewX(editor);
      expect(settled - ended).toBeLessThan(60);
      await tab.waitForTimeout(300);
      expect(await viewX(editor)).toBe(settled);
    } finally {
      await touch.close();
    }
  }, 120_000);

  it("logged no console errors", () => {
    expect(problems).toEqual([]);
  });
});
