/**
 * End to end, the editing canvas: opening a template, palette, ports, moving, selecting, context
 * menu, minimap, params, touch.
 * The session and helpers: lab-harness.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { CHROMIUM } from "./browser.js";
import {
  closeAll,
  dragPort,
  EDGES_ACROSS_NODES,
  minimapDim,
  NODES_IN_VIEW,
  node,
  page,
  portState,
  problems,
  saveAnd,
  savedNode,
  select,
  selectedIds,
  shot,
  undo,
  uiOf,
  useLab,
  viewX,
  work,
  lab,
} from "./lab-harness.js";

describe("The pipeline editor's canvas in JupyterLab (Chromium)", () => {
  useLab();

  /**
   * Drops a list.select node from the palette onto the empty canvas below the template, its ports
   * clear of the edge zone where a connection drawn to them would pan the view for as long as the
   * pointer stays there (and move them away from it on a slow machine).
   */
  const dropSelect = async () => {
    const canvas = (await page.locator(".cf-editor .react-flow__pane").boundingBox())!;
    await page.dragAndDrop('.cf-palette-item[data-type="list.select"]', ".cf-editor .react-flow__pane", { targetPosition: { x: canvas.width / 2, y: canvas.height - 150 } });
  };

  it("opens the Verif.ai template from the launcher", async () => {
    // Each template's card has Citeflow's icon, and its tooltip is the template's description.
    const card = page.locator(".jp-LauncherCard", { hasText: "Template: Verif.ai" });
    expect(await card.locator('svg[data-icon="citeflow:pipeline"]').count()).toBe(1);
    expect(await card.getAttribute("title")).toMatch(/^Verif\.ai \(Bojic et al\., 2024\): hybrid retrieval/);
    await card.click();
    await node("verify").waitFor({ timeout: 60_000 });
    await page.locator('.cf-palette-item[data-type="retrieve.hybrid"]').waitFor();
    expect(await page.locator(".cf-editor .react-flow__node").count()).toBe(8);
    expect(readFileSync(join(work, "root", "verifai.citeflow.json"), "utf8")).toContain('"name": "Verif.ai"');
    await shot("01-verifai-open");

    // Other extensions find the open editors through the token the plugin provides.
    const provided = await page.evaluate(async () => {
      const app = (window as any).jupyterapp;
      const token = [...app.pluginRegistry._services].find(([, id]) => id === "@citeflow/jupyterlab:plugin")?.[0];
      const tracker = token && (await app.resolveRequiredService(token));
      return { token: token?.name, current: tracker?.currentWidget?.context.path };
    });
    expect(provided).toEqual({ token: "@citeflow/jupyterlab:ICiteflowTracker", current: "verifai.citeflow.json" });

    // It opens whole and legible: every node is in view (the template's layout wraps its eight steps
    // into rows), and every node title, type and port label renders at 9.5 px or more (font size ×
    // the view's zoom) in this 1600×1000 window.
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
    expect(await page.evaluate(NODES_IN_VIEW)).toBe(true);
    // No edge is drawn across a node other than its two ends.
    await expect.poll(() => page.evaluate(EDGES_ACROSS_NODES)).toEqual([]);

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
    await expect.poll(() => page.evaluate(NODES_IN_VIEW)).toBe(true);
  }, 120_000);

  it("resizes the side panel by its left edge, with the mouse and the arrow keys, and remembers its width", async () => {
    const side = page.locator(".cf-editor .cf-side");
    const edge = side.locator(".cf-side-resize");
    const before = (await side.boundingBox())!;
    const at = (await edge.boundingBox())!;
    await page.mouse.move(at.x + at.width / 2, at.y + at.height / 2);
    await page.mouse.down();
    await page.mouse.move(at.x + at.width / 2 - 100, at.y + at.height / 2, { steps: 5 });
    await page.mouse.move(at.x + at.width / 2 - 200, at.y + at.height / 2, { steps: 5 });
    await page.mouse.up();
    const dragged = (await side.boundingBox())!.width;
    expect(Math.abs(dragged - (before.width + 200))).toBeLessThan(4);
    await edge.focus();
    await page.keyboard.press("ArrowLeft");
    const keyed = (await side.boundingBox())!.width;
    expect(Math.abs(keyed - (dragged + 20))).toBeLessThan(2);
    expect(Number(await page.evaluate(() => localStorage.getItem("citeflow:side-width")))).toBe(Number(await edge.getAttribute("aria-valuenow")));
    // Never narrower than 300 px, however far it is dragged.
    const now = (await edge.boundingBox())!;
    await page.mouse.move(now.x + now.width / 2, now.y + now.height / 2);
    await page.mouse.down();
    await page.mouse.move(now.x + 2000, now.y + now.height / 2, { steps: 4 });
    await page.mouse.up();
    expect(Math.round((await side.boundingBox())!.width)).toBe(300);
    // Back to the default (double-click), for the rest of the suite.
    await edge.dblclick();
    await expect.poll(async () => Math.round((await side.boundingBox())!.width)).toBe(380);
  }, 60_000);

  it("drags a node from the palette, connects ports, and refuses an incompatible connection", async () => {
    await dropSelect();
    await node("select").waitFor();
    // A required input that no edge feeds is marked before anyone runs.
    const unfed = node("select").locator(".cf-port-label.cf-unfed");
    expect(await unfed.textContent()).toBe("items");
    // While a connection is drawn, the ports show where it starts and whether it may end where it is.
    const view = () => page.locator(".cf-editor .react-flow__viewport").evaluate((el) => getComputedStyle(el).transform);
    const still = await view();
    await dragPort("question.question", "select.items", async () => {
      // Polled: the classes follow the pointer a render later.
      await expect.poll(() => portState("question.question", "source")).toEqual(["connectingfrom"]);
      await expect.poll(() => portState("select.items", "target")).toEqual(["connectingto", "connectionindicator"]);
      // The port is clear of the pane's edge zone (dropSelect): the view has not panned under the pointer.
      expect(await view()).toBe(still);
      // Strict mode: another output cannot end the connection.
      expect(await portState("retrieve.passages", "source")).toEqual([]);
      await shot("02-refused");
    });
    await expect.poll(() => page.locator(".cf-refusal").textContent()).toContain("Question cannot flow into T[]");
    expect(await portState("select.items", "target")).toEqual(["connectionindicator"]);
    const edges = page.locator(".cf-editor .react-flow__edge");
    const before = await edges.count();
    await dragPort("retrieve.passages", "select.items", async () => {
      await expect.poll(() => portState("select.items", "target")).toEqual(["connectingto", "valid", "connectionindicator"]);
    });
    await expect.poll(() => edges.count()).toBe(before + 1);
    expect(await unfed.count()).toBe(0);
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

  it("says why a run cannot start, and forgets a refused run's error once the graph changes", async () => {
    const run = page.locator('[data-action="run"]');
    const question = page.locator(".cf-question");
    await question.fill("");
    expect(await run.isDisabled()).toBe(true);
    expect(await run.getAttribute("title")).toBe("Type a question first");
    await select("top");
    for (const action of ["run-to", "run-from", "run-only"]) expect(await page.locator(`[data-action="${action}"]`).getAttribute("title")).toBe("Type a question first");
    // A graph with an unfed input is refused: the banner says why, and no status or badge of an
    // earlier run stays to read as this one's.
    await dropSelect();
    await node("select").waitFor();
    await question.fill("Vitamin D prevents fractures");
    await run.click();
    const banner = page.locator(".cf-editor .cf-banner");
    await expect.poll(() => banner.textContent()).toContain('required input "items"');
    expect(await page.locator(".cf-run-status").textContent()).toBe("");
    expect(await page.locator(".cf-editor .cf-badge").count()).toBe(0);
    await shot("03b-refused-run");
    // Its × takes the banner away, and so does any change to the graph (here: undoing the drop).
    await page.locator('.cf-editor .cf-banner [data-action="dismiss-error"]').click();
    expect(await banner.count()).toBe(0);
    await run.click();
    await expect.poll(() => banner.count()).toBe(1);
    await undo();
    await expect.poll(() => banner.count()).toBe(0);
    const nodes = page.locator(".cf-editor .react-flow__node");
    expect(await nodes.count()).toBe(8);
    // Ctrl+Z after typing in the question box and clicking the empty canvas undoes the graph's last
    // edit, not the typing.
    await dropSelect();
    await expect.poll(() => nodes.count()).toBe(9);
    await question.click();
    await page.keyboard.type(" daily");
    await page.locator(".cf-editor .react-flow__pane").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("Control+z");
    await expect.poll(() => nodes.count()).toBe(8);
    expect(await question.inputValue()).toBe("Vitamin D prevents fractures daily");
    await question.fill("");
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
    expect(await selectedIds()).toEqual(["join_paper", "select"]);
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
    // A number the node's schema refuses is flagged under the field as it is typed.
    await page.locator('.cf-inspector input[name="limit"]').fill("-3");
    await expect.poll(() => page.locator(".cf-inspector .cf-field-integer .cf-error").textContent()).toMatch(/^must be (at least|more than) /);
    await page.locator('.cf-inspector input[name="limit"]').fill("4");
    await expect.poll(() => page.locator(".cf-inspector .cf-field-integer .cf-error").count()).toBe(0);
    await page.keyboard.press("Control+s");
    await expect.poll(() => savedNode("top").params.limit).toBe(4);
  }, 30_000);

  it("offers the installed models of the right kind in a node's model field, Citeflow's trained ones included", async () => {
    await select("verify");
    const field = page.locator('.cf-inspector input[name="model"]');
    const list = await field.getAttribute("list");
    expect(list).toBeTruthy();
    const offered = await page.locator(`datalist#${list} option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(offered).toEqual(expect.arrayContaining(["citeflow/nli-minilm-scifact", "pair-nli-scifact"]));
    // NLI models only: no reranker, no embedder.
    expect(offered).not.toContain("pair-rerank-scifact");
    expect(offered).not.toContain("static-use-en");
    // An empty field reads "default", not a literal "" (its default is the empty string: the configured model).
    expect(await field.inputValue()).toBe("");
    expect(await field.getAttribute("placeholder")).toBe("default");
  }, 30_000);

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

  it("opens every template whole and legible in a 1600×1000 window", async () => {
    for (const [template, first] of [
      ["core-gpt", "enrich"],
      ["openscholar", "rerank"],
      ["arxivbot", "claims"],
      ["synth-openscholar", "rubric"],
    ]) {
      await closeAll();
      await page.evaluate((t) => void (window as any).jupyterapp.commands.execute("citeflow:new-from-template", { template: t }), template);
      await node(first!).waitFor({ timeout: 60_000 });
      await expect.poll(() => page.evaluate(NODES_IN_VIEW), { message: template }).toBe(true);
      const smallest = await page.locator(".cf-editor").evaluate((root) => {
        const zoom = new DOMMatrix(getComputedStyle(root.querySelector(".react-flow__viewport")!).transform).a;
        return Math.min(...[...root.querySelectorAll(".cf-node-id, .cf-node-type, .cf-port-label")].map((e) => parseFloat(getComputedStyle(e).fontSize) * zoom));
      });
      expect(smallest, template).toBeGreaterThanOrEqual(9.5);
      // No edge is drawn across a node other than its two ends (a wrapped row's last node joins the
      // next row's first through the gap between the rows).
      expect(await page.evaluate(EDGES_ACROSS_NODES), template).toEqual([]);
      await shot(`01b-${template}-open`);
    }
  }, 120_000);

  it("ends an editor's kernel with its document's last tab, also when the tab closes while the kernel starts", async () => {
    const running = () =>
      page.evaluate(async () => {
        const kernels = (window as any).jupyterapp.serviceManager.kernels;
        await kernels.refreshRunning();
        return [...kernels.running()].length;
      });
    // The kernels of editors this page closed have ended; those of pages gone without closing theirs (the touch
    // test's browser) stay, as a notebook's do, for the workspace to reopen.
    await closeAll();
    let before = await running();
    await expect.poll(async () => (before = await running()), { timeout: 60_000 }).toBeLessThanOrEqual(1);
    const open = () => page.evaluate(() => void (window as any).jupyterapp.commands.execute("docmanager:open", { path: "verifai.citeflow.json" }));
    await open();
    await node("verify").waitFor({ timeout: 60_000 });
    await expect.poll(running, { timeout: 60_000 }).toBe(before + 1);
    await closeAll();
    await expect.poll(running, { timeout: 60_000 }).toBe(before);
    // Closed while its kernel starts (the session asked of the server, not yet there): it is shut down once it exists,
    // and nothing is thrown (JupyterLab's session context throws "Disposed" when its document ends mid-start). The
    // request in flight is only seen in the session context's own field.
    await open();
    await page.waitForFunction(() => {
      const session = (window as any).jupyterapp.shell.currentWidget?.context?.sessionContext;
      return session?._pendingSessionRequest && !session.isReady;
    });
    await closeAll();
    await expect.poll(running, { timeout: 60_000 }).toBe(before);
  }, 240_000);

  it("logged no console errors", () => {
    expect(problems).toEqual([]);
  });
});
