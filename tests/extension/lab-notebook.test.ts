/**
 * End to end, beyond the canvas: a run in a notebook output, OpenScholar's loop with a loopback
 * model, the settings, pipelines from the file browser, broken files.
 * The session and helpers: lab-harness.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { completion, json, loopback } from "../models/loopback.js";
import { QUESTION, appears, closeAll, node, page, problems, runBy, saveAnd, select, serveLlm, shot, undo, useLab, work } from "./lab-harness.js";

describe("Notebooks, settings and files in JupyterLab (Chromium)", () => {
  useLab();

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
    // and the models that made it.
    expect(await view.locator('tr[data-node="verify"] .cf-node-models').textContent()).toBe("citeflow/nli-minilm-scifact");
    await view.locator('tr[data-node="retrieve"] button').click();
    await view.locator(".cf-passages table").waitFor();
    // The output carries each passage's text cut to 400 characters, and says so when it shows one.
    const first = view.locator(".cf-passages tbody tr[data-passage]").first();
    await first.locator(".cf-passage-title").click();
    const detail = view.locator(`.cf-passage-detail[data-passage="${await first.getAttribute("data-passage")}"]`);
    expect(await first.locator(".cf-passage-title").getAttribute("aria-expanded")).toBe("true");
    // (at the last whole word: a word is never cut, so a credential stays whole for redaction).
    const full = (await detail.locator(".cf-passage-full").textContent())!;
    expect(full.length).toBeGreaterThan(300);
    expect(full.length).toBeLessThanOrEqual(401);
    expect(full).toMatch(/\S…$/);
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
    const llm = serveLlm(
      await loopback((req, res) => {
        const user = String(req.body?.messages?.at(-1)?.content ?? "");
        if (user.includes("You review"))
          return json(res, 200, completion("Feedback: Add the evidence on older adults.\nQuestion: vitamin D fracture risk older adults\n\nFeedback: Be much shorter.\nQuestion: none"));
        return json(res, 200, completion(user.includes("Feedback: Add the evidence on older adults.") ? longer : "Short."));
      }),
    );
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
    expect(await dialog.locator(".cf-consent li").allTextContents()).toEqual([`sends requests to ${llm.url} — node "feedback", baseUrl`]);
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
    // The edit's before and after: the extractive draft and the server's rewrite share few words, so
    // they are shown one after the other rather than as a word diff.
    const edit = tree.locator('li[data-iteration="1"] .cf-diff-text');
    expect(await edit.textContent()).toContain("Vitamin D supplementation lowers the risk");
    expect((await edit.locator("ins").count()) > 0 || (await edit.getAttribute("class"))!.includes("cf-diff-apart")).toBe(true);
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
    if (await appears(reload, 5_000)) await reload.click();
    await expect.poll(() => tab.getAttribute("class")).not.toContain("jp-mod-dirty");
    await expect.poll(offset).toBeGreaterThan(50);
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(graph, null, 2) + "\n");
  }, 120_000);

  it("reads a pipeline's relative file: prompt in its file's folder, as the CLI and notebooks do", async () => {
    await closeAll();
    const llm = serveLlm(await loopback((_req, res) => json(res, 200, completion("It works [1]."))));
    const sub = join(work, "root", "prompts-here");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, "mine.txt"), "FOLDER-PROMPT {{question.text}}\n{{#each passages}}[{{@number}}] {{text}}\n{{/each}}");
    const doc = {
      citeflow: 1,
      name: "Folder prompt",
      inputs: { question: { type: "Question" } },
      nodes: [
        { id: "question", type: "input.question", version: 1, params: {}, ui: { x: 0, y: 0 } },
        { id: "retrieve", type: "retrieve.lexical", version: 1, params: { k: 1 }, ui: { x: 300, y: 0 } },
        { id: "answer", type: "generate.answer", version: 3, params: { generator: "llm", model: "loopback-model", baseUrl: llm.url, retries: 0, prompt: "file:mine.txt" }, ui: { x: 600, y: 0 } },
      ],
      edges: [
        { from: "question.question", to: "retrieve.question" },
        { from: "question.question", to: "answer.question" },
        { from: "retrieve.passages", to: "answer.passages" },
      ],
    };
    // Opened at the root, then moved beside its prompt: the editor's kernel keeps running in the root
    // (where there is no mine.txt), so the prompt is found only where the file now is.
    writeFileSync(join(work, "root", "folder.citeflow.json"), JSON.stringify(doc, null, 2));
    await page.evaluate(() => void (window as any).jupyterapp.commands.execute("docmanager:open", { path: "folder.citeflow.json", factory: "Citeflow Pipeline Editor" }));
    await node("answer").waitFor({ timeout: 60_000 });
    await page.evaluate(() => (window as any).jupyterapp.serviceManager.contents.rename("folder.citeflow.json", "prompts-here/folder.citeflow.json"));
    await expect.poll(() => page.evaluate(() => (window as any).jupyterapp.shell.currentWidget?.context?.path)).toBe("prompts-here/folder.citeflow.json");
    await page.locator(".cf-question").fill(QUESTION);
    expect(
      await runBy(async () => {
        await page.locator('[data-action="run"]').click();
        await page.locator(".jp-Dialog button", { hasText: "Allow and run" }).click();
      }),
    ).toBe("ok");
    expect(llm.requests.length).toBe(1);
    expect(JSON.stringify(llm.requests[0]!.body)).toContain(`FOLDER-PROMPT ${QUESTION}`);
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
      "nodes[1].id: duplicate node id",
      'edges[0].to: edge to unknown node "ghost" (dangling edge)',
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

  it("logged no console errors", () => {
    expect(problems).toEqual([]);
  });
});
