// The first minutes in JupyterLab, measured in real JupyterLab and headless Chromium. Prints medians and
// ratios against a peer measured in the same run:
//  1. `npm run lab` (scripts/lab.mjs) on a fresh runs folder, SciFact not yet indexed: from the command to the
//     address it prints and to the launcher drawn in Chromium (the index builds beside it meanwhile), against
//     the same JupyterLab and wheel started with nothing else to do (startLab);
//  2. the first Run of the Verif.ai template in a new editor, from the click to the answer's first token (the
//     in-process language model loads on its first use in a kernel), against the next Run in the same editor
//     on another question (the model loaded). CITEFLOW_BENCH_LAB_REPS editors, each with its own kernel
//     (default 2); the store: $CITEFLOW_BENCH_STORE (the demo's SciFact store, as CI passes it), else the first
//     300 SciFact abstracts indexed here.
// Run alone (the in-process model uses both cores): node bench/lab-start.mjs
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";

import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { DATA, scratch } from "./paths.mjs";

const root = resolve(import.meta.dirname, "..");
const { startLab } = await import(join(root, "scripts", "lab.mjs"));
const REPS = Number(process.env.CITEFLOW_BENCH_LAB_REPS ?? 2);
const work = scratch("citeflow-bench-lab-start-");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

const browser = await chromium.launch({
  headless: true,
  executablePath: process.env.CITEFLOW_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});

/** Milliseconds from `t0` until JupyterLab's launcher is drawn at `url` in a fresh page. */
async function launcherDrawn(url, t0) {
  const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
  await page.goto(url);
  await page.locator(".jp-LauncherCard").first().waitFor({ timeout: 180_000 });
  const ms = performance.now() - t0;
  await page.context().close();
  return ms;
}

// 1. Served: npm run lab's script against startLab alone, alternating.
const served = { lab: { address: [], launcher: [] }, bare: { address: [], launcher: [] } };
for (let i = 0; i < REPS; i++) {
  const dir = join(work, `lab-${i}`);
  mkdirSync(join(dir, "root"), { recursive: true });
  const t0 = performance.now();
  const env = { ...process.env, CITEFLOW_RUNS: join(dir, "runs") };
  delete env.CITEFLOW_STORE;
  const child = spawn(process.execPath, [join(root, "scripts", "lab.mjs"), "--state", join(dir, "state"), "--root", join(dir, "root")], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", () => undefined);
  const url = await new Promise((ok, fail) => {
    const t = setTimeout(() => fail(new Error(`npm run lab printed no address within 180 s:\n${out}`)), 180_000);
    child.stdout.on("data", () => {
      const m = /http:\/\/127\.0\.0\.1:\d+\/lab\?token=\w+/.exec(out);
      if (!m) return;
      clearTimeout(t);
      ok(m[0]);
    });
  });
  served.lab.address.push(performance.now() - t0);
  served.lab.launcher.push(await launcherDrawn(url, t0));
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGINT");
  await exited;

  const b0 = performance.now();
  const bare = await startLab({ state: join(dir, "bare-state"), root: join(dir, "root"), quiet: true, env: { CITEFLOW_RUNS: join(dir, "bare-runs") } });
  served.bare.address.push(performance.now() - b0);
  served.bare.launcher.push(await launcherDrawn(bare.url, b0));
  await bare.stop();
}

// 2. First token: a store, then Verif.ai in new editors.
let store = process.env.CITEFLOW_BENCH_STORE;
if (!store) {
  store = join(work, "store");
  execFileSync(process.execPath, [join(root, "packages", "cli", "dist", "bin.js"), "ingest", join(DATA, "scifact", "corpus.jsonl"), "--store", store, "--limit", "300"], { stdio: "ignore" });
}
mkdirSync(join(work, "root"), { recursive: true });
const lab = await startLab({ state: join(work, "state"), root: join(work, "root"), quiet: true, exposeApp: true, env: { CITEFLOW_RUNS: join(work, "runs"), CITEFLOW_STORE: store } });
const first = [];
const next = [];
let model = "";
try {
  const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
  await page.goto(lab.url);
  await page.waitForFunction(() => window.jupyterapp?.commands.hasCommand("citeflow:new-from-template"), undefined, { timeout: 180_000 });
  /** Clicks Run on `question` and returns the milliseconds to the answer node's first generated text (or its end, if it streams none). */
  const firstToken = async (question) => {
    await page.locator(".cf-question").fill(question);
    const t0 = performance.now();
    await page.locator('[data-action="run"]').click();
    // This run's answer node, not the last one's: it is queued or running again first.
    await page.waitForFunction(() => ["queued", "running"].includes(document.querySelector('.cf-editor .react-flow__node[data-id="answer"] .cf-badge')?.getAttribute("data-status") ?? ""), undefined, {
      polling: 20,
      timeout: 60_000,
    });
    await page.waitForFunction(
      () => {
        const card = document.querySelector('.cf-editor .react-flow__node[data-id="answer"]');
        const text = card?.querySelector(".cf-progress-text")?.textContent ?? "";
        const done = card?.querySelector(".cf-badge")?.getAttribute("data-status");
        // The model's load and the prompt's reading say themselves first ("loading … (its first use this session)",
        // "… loaded in 3.2 s", "reading the prompt (9,210 characters) before the first token").
        const waiting = /^loading .*\(its first use this session\)$| loaded in [\d.]+ s$|^reading the prompt \(|^waiting for the first token /;
        return (text !== "" && !waiting.test(text)) || done === "done" || done === "error";
      },
      undefined,
      { polling: 50, timeout: 600_000 },
    );
    const ms = performance.now() - t0;
    await page.waitForFunction(() => ["ok", "error"].includes(document.querySelector(".cf-run-status")?.getAttribute("data-status") ?? ""), undefined, { timeout: 600_000 });
    return ms;
  };
  for (let i = 0; i < REPS; i++) {
    // A new file each time, so each editor has a kernel of its own (it ends when the tab closes).
    await page.evaluate(() => void window.jupyterapp.commands.execute("citeflow:new-from-template", { template: "verifai" }));
    await page.locator('.cf-editor .react-flow__node[data-id="answer"]').waitFor({ timeout: 120_000 });
    first.push(await firstToken(`Does vitamin D supplementation prevent fractures in older adults? (${i})`));
    next.push(await firstToken(`Is aspirin associated with a lower risk of colorectal cancer? (${i})`));
    model ||=
      (await page
        .locator('.cf-editor .react-flow__node[data-id="answer"] .cf-node-models')
        .textContent()
        .catch(() => "")) ?? "";
    await page.evaluate(() => window.jupyterapp.shell.closeAll());
    const discard = page.locator(".jp-Dialog button", { hasText: "Discard" });
    if (await discard.count()) await discard.click();
  }
} finally {
  await lab.stop();
  await browser.close();
}

console.log("\nThe first minutes in JupyterLab (headless Chromium at 1600×1000)\n");
console.log(`${REPS} starts each, medians                     address printed   launcher drawn`);
console.log(`npm run lab (fresh runs folder, SciFact indexing) ${s(median(served.lab.address)).padStart(10)}   ${s(median(served.lab.launcher)).padStart(12)}`);
console.log(`JupyterLab + wheel alone (startLab)               ${s(median(served.bare.address)).padStart(10)}   ${s(median(served.bare.launcher)).padStart(12)}`);
console.log(`ratio (npm run lab / alone): ${(median(served.lab.launcher) / median(served.bare.launcher)).toFixed(2)}× to the launcher`);
console.log(`\nRun click → the answer's first token, Verif.ai (${model || "the configured language model"}), ${REPS} editors, medians`);
console.log(`first run in a new editor (the model loads)  ${s(median(first))}   (each: ${first.map(s).join(", ")})`);
console.log(`next run, another question (model loaded)   ${s(median(next))}   (each: ${next.map(s).join(", ")})`);
console.log(`ratio (first / next): ${(median(first) / median(next)).toFixed(2)}×`);
