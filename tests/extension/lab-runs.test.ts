/**
 * End to end, running from the editor: live badges and inspectors, partial runs and overrides,
 * diffs, stepping and breakpoints, corrections, the dark theme.
 * The session and helpers: lab-harness.ts.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { NODES_CLEAR_OF_CONTROLS, NODES_IN_VIEW, QUESTION, expectReadable, minimapDim, node, page, problems, runBy, select, shot, useLab, work, badge, openVerifai, storeDir } from "./lab-harness.js";

describe("Runs in the pipeline editor (JupyterLab, Chromium)", () => {
  useLab();

  beforeAll(openVerifai, 90_000);

  it("runs on a question with live badges, then inspects passages, sorts by a score, follows a citation", async () => {
    await page.locator(".cf-question").fill(QUESTION);
    expect(await runBy(() => page.locator('[data-action="run"]').click())).toBe("ok");
    for (const id of ["question", "retrieve", "papers", "top", "answer", "claims", "verify", "citations"]) await expect.poll(() => badge(id).getAttribute("data-status")).toMatch(/^(done|cached)$/);
    await shot("04-run-done");
    // The cards grew with what each produced; the view, untouched since the pipeline opened, still shows them all,
    // clear of the zoom controls.
    await expect.poll(() => page.evaluate(NODES_IN_VIEW)).toBe(true);
    expect(await page.evaluate(NODES_CLEAR_OF_CONTROLS)).toEqual([]);
    // Each card says what its node produced, in one line.
    const summary = (id: string) => node(id).locator(".cf-node-summary").textContent();
    expect(await summary("retrieve")).toMatch(/^\d+ passages · top fused [\d.]+$/);
    expect(await summary("top")).toMatch(/^\d+ passages · top /);
    expect(await summary("answer")).toMatch(/^answer · \d+ citations? · 0 hallucinated$/);
    // Its three lists: a verdict per claim and passage, a calibrated one per claim, and the question's.
    expect(await summary("verify")).toMatch(/^verdicts: \d+ (SUPPORT|CONTRADICT|NO_EVIDENCE|NO_REFERENCE)\b.* · claimVerdicts: \d+ (SUPPORT|CONTRADICT|NO_EVIDENCE|NO_REFERENCE|CANNOT_TELL)\b/);
    // Each node that ran a model names it on its card (and in its inspector, below); the others name none.
    const models = (id: string) => node(id).locator(".cf-node-models").textContent();
    for (const id of ["verify", "citations"]) expect(await models(id)).toBe("citeflow/nli-minilm-scifact");
    expect(await models("retrieve")).toBeTruthy();
    expect(await models("answer")).toBeTruthy();
    for (const id of ["question", "papers", "top", "claims"]) expect(await node(id).locator(".cf-node-models").count()).toBe(0);
    // The status in words, the run's id a link to it in the Runs tab.
    const status = page.locator(".cf-run-status");
    expect(await status.textContent()).toMatch(/^Done in \d+(\.\d)? m?s · run [0-9a-f]+$/);
    await status.locator('[data-action="show-run"]').click();
    await expect.poll(() => page.locator('.cf-editor .cf-tabs [aria-selected="true"]').textContent()).toBe("Runs");
    await page.locator(".cf-editor .cf-tabs button", { hasText: "Node" }).click();

    await select("verify");
    await expect.poll(() => page.locator('.cf-inspector [data-view="models"]').textContent()).toBe("Model: citeflow/nli-minilm-scifact card");
    await select("retrieve");
    const table = page.locator('.cf-inspector .cf-output[data-port="passages"] table');
    await table.waitFor();
    // The score the passages are ranked by comes right after the rank, in view without scrolling.
    expect(await table.locator("thead th").nth(1).getAttribute("data-sort")).toBe("fused");
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

    // The README's picture (docs/images/editor.png): the whole pipeline after a run, each node with
    // its summary, models and warnings, and the verdicts in the inspector beside it.
    await select("verify");
    await page.locator('.cf-inspector .cf-output[data-port="verdicts"]').waitFor();
    await page.locator(".cf-editor .react-flow__controls-fitview").click();
    await expect.poll(() => page.evaluate(NODES_IN_VIEW)).toBe(true);
    await page.waitForTimeout(300);
    await shot("readme-editor");
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
    // Each run says what it was: the edited re-run, the whole run, the run that stopped at "papers".
    expect(await rows.locator(".cf-run-kind").allTextContents()).toEqual(expect.arrayContaining(["run · edited: top", "run", "run to papers"]));
    expect(await rows.nth(0).locator(".cf-run-kind").textContent()).toBe("run · edited: top");
    expect(await rows.nth(2).locator(".cf-run-kind").textContent()).toBe("run to papers");
    // Each says where it was started; the list filters by it (no notebook ran here), and back.
    const all = await rows.count();
    expect(new Set(await rows.locator(".cf-run-origin").allTextContents())).toEqual(new Set(["editor"]));
    const from = page.locator('.cf-runs select[aria-label="show the runs started from"]');
    await from.selectOption("notebook");
    await expect.poll(() => rows.count()).toBe(0);
    await from.selectOption("editor");
    await expect.poll(() => rows.count()).toBe(all);
    await from.selectOption("");
    await rows.nth(0).locator("input[type=checkbox]").check();
    await rows.nth(1).locator("input[type=checkbox]").check();
    await page.locator(".cf-runs button", { hasText: "Diff" }).click();
    await page.locator('.cf-diff tr[data-diff-node="top"]').waitFor();
    // In time order whichever was checked first: A the older run (the list's second), B the newer.
    expect(await page.locator(".cf-diff h4").first().textContent()).toContain((await rows.nth(1).getAttribute("data-run"))!);
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
    // and the two texts as one word diff, A → B (or one after the other, when they share under 30 % of their words).
    const shared = Number(
      (await sides
        .locator(".cf-diff-apart")
        .getAttribute("data-shared", { timeout: 1000 })
        .catch(() => null)) ?? 1,
    );
    if (shared >= 0.3) expect(await sides.locator(".cf-diff-text").locator("ins, del").count()).toBeGreaterThan(0);
    else expect(await sides.locator(".cf-diff-apart p").count()).toBe(3);
    await shot("08-diff");
    // Against the run that stopped at "papers" (the third newest, so A), A has no answer and says why.
    await rows.nth(1).locator("input[type=checkbox]").uncheck();
    await rows.nth(2).locator("input[type=checkbox]").check();
    await page.locator(".cf-runs button", { hasText: "Diff" }).click();
    await expect.poll(() => page.locator(".cf-diff h4").first().textContent()).toContain((await rows.nth(2).getAttribute("data-run"))!);
    await page.locator('.cf-diff tr[data-diff-node="answer"] button').click();
    await sides.locator('.cf-side[data-side="b"] .cf-answer').waitFor();
    expect(await sides.locator('.cf-side[data-side="a"]').textContent()).toMatch(/answer/);
    expect(await sides.locator('.cf-side[data-side="a"] .cf-answer').count()).toBe(0);
    expect(await sides.locator(".cf-diff-mark").textContent()).toBe("only in B");
    await shot("08b-diff-missing-side");
    // Export this graph's runs as SFT rows, half of them held for validation: files and card
    // written where the form says, and every run so far asked one question, so all its rows stay
    // on one side of the split. (Not NLI: these answers are the extractive baseline's quotes, and a
    // quote checked against its own sentence makes no NLI row.)
    await page.locator(".cf-export summary").click();
    await page.locator('.cf-export select[name="format"]').selectOption("sft");
    await page.locator('.cf-export input[name="split"]').fill("0.5");
    await page.locator(".cf-export button[type=submit]").click();
    const done = page.locator(".cf-export .cf-notice[data-export]");
    await done.waitFor({ timeout: 30_000 });
    const out = (await done.getAttribute("data-export"))!;
    expect(out).toBe(join(work, "root", "datasets", "verif-ai-sft"));
    const rowsOf = (file: string) =>
      existsSync(join(out, file))
        ? readFileSync(join(out, file), "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { metadata: { runId: string } })
        : [];
    const split = [rowsOf("train.jsonl"), rowsOf("validation.jsonl")];
    const exported = split.flat();
    expect(exported.length).toBeGreaterThan(0);
    expect(new Set(exported.map((r) => r.metadata.runId)).size).toBeGreaterThan(1);
    expect(split.filter((side) => side.length > 0)).toHaveLength(1);
    expect(Object.keys(exported[0]!).sort()).toEqual(["messages", "metadata"]);
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain("# Citeflow export: sft");
    await shot("09-export");
  }, 60_000);

  it("flags an answer that repeats itself and cites nothing", async () => {
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    // An answer that repeats itself and cites nothing says so on its card and in its inspector.
    await select("answer");
    await page.locator('.cf-inspector .cf-output[data-port="answer"] .cf-raw-toggle input').check();
    await page.locator('.cf-inspector .cf-output[data-port="answer"] button', { hasText: "Edit value" }).click();
    const looping = { text: "Fractures fell by 12% in the trial. Fractures fell by 31% in the trial.", citations: {}, allowed: [], invalidCitations: [] };
    await page.locator(".cf-inspector .cf-json-edit").fill(JSON.stringify(looping));
    expect(await runBy(() => page.locator(".cf-inspector button", { hasText: "Apply and re-run downstream" }).click())).toBe("ok");
    await expect.poll(() => node("answer").locator(".cf-node-warnings").textContent()).toBe("⚠ no citation · a sentence repeated");
    await select("answer");
    await expect.poll(() => page.locator('.cf-inspector [data-view="warnings"] li').allTextContents()).toEqual(["⚠ no citation", "⚠ a sentence repeated"]);
    await shot("07b-warnings");
  }, 90_000);

  it("links an answer's citation markers, and no other number in it", async () => {
    await select("answer");
    await page.locator('.cf-inspector .cf-output[data-port="answer"] .cf-raw-toggle input').check();
    await page.locator('.cf-inspector .cf-output[data-port="answer"] button', { hasText: "Edit value" }).click();
    const numbers = { text: "In 2007, fractures fell by 31% in 205 patients (n = 205, 95% CI 12–40) [1].", citations: { "1": "p-cited" }, allowed: ["p-cited"], invalidCitations: [] };
    await page.locator(".cf-inspector .cf-json-edit").fill(JSON.stringify(numbers));
    expect(await runBy(() => page.locator(".cf-inspector button", { hasText: "Apply and re-run downstream" }).click())).toBe("ok");
    await select("answer");
    await page.locator('.cf-inspector .cf-output[data-port="answer"] .cf-raw-toggle input').uncheck();
    const text = page.locator('.cf-inspector .cf-output[data-port="answer"] .cf-answer-text');
    await expect.poll(() => text.textContent()).toBe(numbers.text);
    // One link, on the marker in brackets; 2007, 31, 205, 95, 12 and 40 stay text.
    expect(await text.locator(".cf-cite").allTextContents()).toEqual(["1"]);
    expect(await text.locator(".cf-cite").getAttribute("data-passage")).toBe("p-cited");
    await shot("07c-numbers-not-links");
  }, 90_000);

  it("shows a stored run with the params it ran with, not the graph's since", async () => {
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    await select("top");
    // Params fold away under a node's outputs: open them.
    const params = page.locator(".cf-inspector details").first();
    await params.locator("summary").click();
    const limit = page.locator('.cf-inspector .cf-params input[name="limit"]');
    expect(await limit.inputValue()).toBe("5");
    await limit.fill("3");
    await page.locator(".cf-tabs button", { hasText: "Runs" }).click();
    await page.locator(".cf-runs tbody tr").first().locator("button.cf-link").click();
    await expect.poll(() => page.locator(".cf-run-status").textContent()).toMatch(/^Stored run: /);
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    await select("top");
    // 5 passages came out of a run that kept 5, whatever the graph says now; the stored params cannot be edited.
    const ran = page.locator(".cf-inspector fieldset.cf-params-ran");
    await ran.waitFor({ state: "attached" });
    expect(await page.locator(".cf-inspector details > summary").first().textContent()).toBe("Params this run used");
    expect(await ran.locator('input[name="limit"]').inputValue()).toBe("5");
    expect(await ran.locator('input[name="limit"]').isDisabled()).toBe(true);
    await shot("08c-stored-run-params");
    // A new run shows the graph's params again, editable.
    expect(await runBy(() => page.locator('[data-action="run"]').click())).toBe("ok");
    await expect.poll(() => limit.inputValue()).toBe("3");
    await badge("top").waitFor();
    await params.evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await limit.fill("5");
  }, 90_000);

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
    // The verdict shows its corrected label, the model's struck through, and the card says so.
    const first = page.locator(".cf-inspector .cf-verdict").first();
    expect(await first.getAttribute("data-corrected")).toBe(label);
    expect(await first.locator(".cf-label").first().textContent()).toBe(label);
    expect(await node("verify").locator(".cf-node-corrected").textContent()).toBe("✎ 1 corrected");

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

  it("names the model each node ran, with the card of a model Citeflow trained", async () => {
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    await select("verify");
    const line = page.locator('.cf-inspector [data-view="models"]');
    await expect.poll(() => line.textContent()).toBe("Model: citeflow/nli-minilm-scifact card");
    await line.locator(".cf-card-toggle").click();
    const card = line.locator('.cf-model-card[data-model="citeflow/nli-minilm-scifact"]');
    await card.waitFor();
    const facts = Object.fromEntries(await card.locator("tr").evaluateAll((rows) => rows.map((r) => [r.querySelector("th")!.textContent, r.querySelector("td")!.textContent])));
    expect(facts["base weights"]).toContain("all-MiniLM-L6-v2");
    expect(facts["command"]).toMatch(/^citeflow train nli /);
    expect(facts["SUPPORT vs CONTRADICT on gold rationales"]).toMatch(/^0\.\d{3} on \d+/);
    expect(await card.locator(".cf-mono").last().textContent()).toMatch(/citeflow\/nli-minilm-scifact\/README\.md$/);
    await shot("11-model-card");
    // A model without a card (the fixture embedder) is named alone.
    await select("retrieve");
    await expect.poll(() => page.locator('.cf-inspector [data-view="models"]').textContent()).toBe("Model: static-use-en");
    expect(await page.locator(".cf-inspector .cf-card-toggle").count()).toBe(0);
  }, 90_000);

  it("runs a question set: one run a line, the set's progress in the toolbar, each question its own run in the Runs tab", async () => {
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    await page.locator('[data-action="per-line"]').check();
    const questions = [QUESTION, "Aspirin lowers the risk of stroke.", "Statins lower LDL cholesterol."];
    await page.locator("textarea.cf-question").fill(questions.join("\n"));
    expect(await page.locator(".cf-toolbar .cf-muted", { hasText: /questions$/ }).textContent()).toBe("3 questions");
    // Part of a pipeline is for one question.
    expect(await page.locator('[data-action="step"]').isDisabled()).toBe(true);
    await page.locator('[data-action="run"]').click();
    const set = page.locator(".cf-set-status");
    await expect.poll(() => set.getAttribute("data-status"), { timeout: 90_000 }).toBe("ok");
    expect(await set.textContent()).toBe("Question set done: 3 of 3 runs, 0 failed");
    // The canvas shows the set's last run, finished.
    await expect.poll(() => page.locator(".cf-run-status").getAttribute("data-status")).toBe("ok");
    await shot("12-question-set");
    await page.locator(".cf-tabs button", { hasText: "Runs" }).click();
    await page.locator(".cf-runs button", { hasText: "Refresh" }).click();
    const rows = page.locator(".cf-runs tbody tr");
    await expect.poll(async () => (await Promise.all([0, 1, 2].map((i) => rows.nth(i).locator("td").last().textContent()))).sort()).toEqual([...questions].sort());
    expect(await page.locator(".cf-runs tbody tr.cf-focus td").last().textContent()).toBe(questions[2]);
    // Off again, the box is one line: its questions joined with a space, never run together.
    await page.locator('[data-action="per-line"]').uncheck();
    expect(await page.locator("input.cf-question").inputValue()).toBe(questions.join(" "));
    await page.locator(".cf-question").fill(QUESTION);
    // A single run after the set: the set's status ("done: 3 of 3") goes, it is not this run's.
    await page.locator(".cf-tabs button", { hasText: "Node" }).click();
    await page.locator('[data-action="run"]').click();
    await expect.poll(() => page.locator(".cf-set-status").count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.locator(".cf-run-status").getAttribute("data-status"), { timeout: 90_000 }).toBe("ok");
  }, 120_000);

  it("says while the store is being indexed, in the status bar and on the template cards, and not once it is ready", async () => {
    // An ingest holding the store's lock (this process, alive), 4,148 of 5,184 abstracts in (80 %), started 12 minutes
    // ago: about 3 min left (a quarter of 12), and still 3 a minute later.
    const lock = join(storeDir, "ingest.lock");
    const startedAt = new Date(Date.now() - 12 * 60_000).toISOString();
    writeFileSync(lock, JSON.stringify({ pid: process.pid, startedAt, documents: 4148, total: 5184, updatedAt: new Date().toISOString() }));
    try {
      await page.reload();
      const status = page.locator(".cf-store-status");
      await expect.poll(() => status.textContent(), { timeout: 60_000 }).toBe("Indexing SciFact: 80 %, about 3 min");
      // The template cards say it too (a new launcher, the dock's "+").
      await page.locator(".lm-DockPanel .lm-TabBar-addButton").first().click();
      await expect.poll(() => page.locator(".jp-LauncherCard", { hasText: "Template: Verif.ai (Indexing SciFact: 80 %, about 3 min)" }).count(), { timeout: 30_000 }).toBe(1);
      await shot("13-indexing-status");
      // Done: the next poll finds no lock, and the status goes.
      rmSync(lock);
      await expect.poll(() => page.locator(".cf-store-status:visible").count(), { timeout: 30_000 }).toBe(0);
      expect(await page.locator(".jp-LauncherCard", { hasText: "Indexing" }).count()).toBe(0);
    } finally {
      rmSync(lock, { force: true });
    }
  }, 120_000);

  it("logged no console errors", () => {
    expect(problems).toEqual([]);
  });
});
