// The pipeline editor in real JupyterLab and headless Chromium. Prints medians and ratios against
// a peer measured in the same run:
//  1. dragging a node on a 100-node graph: frame intervals (requestAnimationFrame) while the mouse
//     moves, against the same drag on a 10-node graph and the same mouse path with no drag (the
//     floor of this machine). Two paths: inside the pane (the node goes 240 px right and down, then
//     back), and past the pane's left edge, where the editor pans the view under the node every
//     frame (autopan, extension/src/autopan.ts); CITEFLOW_BENCH_DRAGS drags each (default 5). Also the main thread's busy time
//     per frame (Chromium's TaskDuration), the headroom left in the 16.7 ms frame budget, and the CPU
//     time of all Chromium's processes per frame (raster workers, compositor, display compositor and
//     browser included): on a 2-core machine a frame is lost when they and the main thread together
//     run out of cores, even with the main thread under budget; "other CPU" is what the rest of the
//     machine used meanwhile (this script, the Jupyter server, the kernel). A peer run past the edge with the
//     edges hidden shows what drawing the edges costs;
//  2. the passages inspector rendering 1,000 SciFact passages in a notebook output (its table is
//     windowed: rows outside the view are spacers), against JupyterLab's own HTML renderer drawing
//     the same passages (an HTML table of all 1,000 rows, every row in the DOM). The bundle carries
//     passage texts cut to what the inspector shows (400 characters) and a 50-row text/html table.
// Run: npm run bench.
import { execFileSync } from "node:child_process";
import { createReadStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";
import { DATA, scratch } from "./paths.mjs";

const root = resolve(import.meta.dirname, "..");
const { startLab } = await import(join(root, "scripts", "lab.mjs"));
const { passagesBundle, passagesHtml } = await import(join(root, "packages", "citeflow", "dist", "index.js"));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (v) => `${v.toFixed(1)} ms`;
const REPS = Number(process.env.CITEFLOW_BENCH_DRAGS ?? 5);

/** A grid of n list.select nodes, each feeding the next. */
function grid(n) {
  const cols = Math.ceil(Math.sqrt(n));
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, type: "list.select", version: 1, params: { limit: 5 }, ui: { x: (i % cols) * 240, y: Math.floor(i / cols) * 130 } }));
  const edges = nodes.slice(1).map((_, i) => ({ from: `n${i}.items`, to: `n${i + 1}.items` }));
  return { citeflow: 1, name: `grid ${n}`, inputs: {}, nodes, edges };
}

async function sciFactPassages(n) {
  const out = [];
  const lines = createInterface({ input: createReadStream(join(DATA, "scifact", "corpus.jsonl")) });
  for await (const line of lines) {
    const d = JSON.parse(line);
    const i = out.length;
    out.push({ id: `${d.doc_id}#0`, title: d.title, text: d.abstract.join(" "), metadata: { source: "scifact" }, scores: { bm25: 30 - (i % 97) * 0.3, dense: 1 - (i % 89) / 100, fused: 1 - i / n } });
    if (out.length >= n) break;
  }
  lines.close();
  return out;
}

/** The kernel's clock ticks per second, the unit of /proc's CPU times. */
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
  } catch {
    return NaN;
  }
})();

/**
 * CPU time (ms) used so far by the Chromium started with this profile folder and all its child
 * processes, from /proc (Linux); NaN elsewhere.
 */
function chromiumCpuMs(profile) {
  try {
    const procs = [];
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        // Fields after the command name: state ppid … utime (12th) stime (13th).
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        procs.push({ pid: Number(pid), ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]), root: readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`--user-data-dir=${profile}`) });
      } catch {
        // The process ended while we looked.
      }
    }
    const ours = new Set(procs.filter((p) => p.root).map((p) => p.pid));
    for (let grew = true; grew;) {
      grew = false;
      for (const p of procs)
        if (!ours.has(p.pid) && ours.has(p.ppid)) {
          ours.add(p.pid);
          grew = true;
        }
    }
    return (1000 * procs.filter((p) => ours.has(p.pid)).reduce((t, p) => t + p.cpu, 0)) / clockTicks;
  } catch {
    return NaN;
  }
}

/** CPU time (ms) the whole machine has been busy so far (user, nice, system, irq, softirq), from /proc/stat; NaN elsewhere. */
function machineCpuMs() {
  try {
    const [user, nice, system, , , irq, softirq] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    return (1000 * (user + nice + system + irq + softirq)) / clockTicks;
  } catch {
    return NaN;
  }
}

/** Starts a Chromium trace of the page's tasks, animation frames and marks, collected into `events`. */
async function startTrace(cdp, events) {
  events.length = 0;
  cdp.on("Tracing.dataCollected", (d) => events.push(...d.value));
  await cdp.send("Tracing.start", { traceConfig: { includedCategories: ["toplevel", "devtools.timeline", "blink.user_timing"] }, transferMode: "ReportEvents" });
}

async function stopTrace(cdp, events) {
  const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.end");
  await done;
  cdp.removeAllListeners("Tracing.dataCollected");
  return events;
}

/**
 * The main thread's busy time (ms) in each frame between the marks cf-drag-start and cf-drag-end:
 * the page's main thread is the thread with the most animation-frame callbacks; a frame runs from
 * one frame's callbacks to the next's (callbacks within 3 ms are one frame's); busy time is the
 * part of its top-level tasks inside it.
 */
function frameBusy(events) {
  const threads = new Map();
  for (const e of events) if (e.name === "FireAnimationFrame") threads.set(`${e.pid}:${e.tid}`, (threads.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const main = [...threads].sort((a, b) => b[1] - a[1])[0][0];
  const on = (e) => `${e.pid}:${e.tid}` === main;
  const marks = events.filter((e) => e.name === "cf-drag-start" || e.name === "cf-drag-end").sort((a, b) => a.ts - b.ts);
  const frames = events
    .filter((e) => on(e) && e.name === "FireAnimationFrame")
    .map((e) => e.ts)
    .sort((a, b) => a - b)
    .filter((t, i, all) => i === 0 || t - all[i - 1] > 3000);
  const tasks = events.filter((e) => on(e) && e.ph === "X" && e.name === "ThreadControllerImpl::RunTask");
  const busy = [];
  for (let m = 0; m + 1 < marks.length; m++) {
    if (marks[m].name !== "cf-drag-start" || marks[m + 1].name !== "cf-drag-end") continue;
    const inside = frames.filter((t) => t > marks[m].ts && t < marks[m + 1].ts);
    for (let i = 1; i < inside.length; i++) {
      let us = 0;
      for (const t of tasks) us += Math.max(0, Math.min(t.ts + t.dur, inside[i]) - Math.max(t.ts, inside[i - 1]));
      busy.push(us / 1000);
    }
  }
  return { frames: busy.length, p50: pct(busy, 0.5), p90: pct(busy, 0.9), p99: pct(busy, 0.99), over14: busy.filter((b) => b > 14).length };
}

async function closeAll(page) {
  await page.evaluate(() => void window.jupyterapp.shell.closeAll());
  // Dragging made the pipeline dirty: JupyterLab asks whether to save it.
  for (let i = 0; (await page.locator(".jp-Document").count()) > 0; i++) {
    if (i > 100) throw new Error("documents did not close");
    const discard = page.locator(".jp-Dialog button", { hasText: "Discard" });
    if (await discard.count()) await discard.click();
    await page.waitForTimeout(100);
  }
}

const work = scratch("citeflow-bench-lab-");
mkdirSync(join(work, "root"));
for (const n of [10, 100]) writeFileSync(join(work, "root", `grid-${n}.citeflow.json`), JSON.stringify(grid(n), null, 2));
const lab = await startLab({ state: join(work, "state"), root: join(work, "root"), quiet: true, exposeApp: true, env: { CITEFLOW_RUNS: join(work, "runs") } });
const profile = join(work, "chromium");
const ctx = await chromium.launchPersistentContext(profile, {
  headless: true,
  executablePath: process.env.CITEFLOW_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  viewport: { width: 1600, height: 1000 },
});
try {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(lab.url);
  await page.locator(".jp-LauncherCard").first().waitFor({ timeout: 60_000 });

  // 1. Drag frames: the same mouse path with the button down on node n0 (a drag) and, as the
  // floor of this machine, with the button up over the empty pane of the 100-node graph (no drag).
  const drag = {};
  const phases = {};
  // Main-thread time (Chromium's TaskDuration: script, style, layout, paint) per frame of a drag:
  // steadier than counting long frames, and it shows the headroom left in the 16.7 ms budget.
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Performance.enable");
  const taskSeconds = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value;
  const runs = [
    { key: "10", label: "drag, 10 nodes", n: 10, press: true, edge: false },
    { key: "100", label: "drag, 100 nodes", n: 100, press: true, edge: false },
    { key: "idle", label: "no drag, 100 nodes", n: 100, press: false, edge: false },
    { key: "10 edge", label: "past edge, 10 nodes", n: 10, press: true, edge: true },
    { key: "100 edge", label: "past edge, 100 nodes", n: 100, press: true, edge: true },
    // Peer: the same drag with the edges not drawn, to show what drawing them costs.
    { key: "100 edge bare", label: "  the same, no edges", n: 100, press: true, edge: true, css: ".cf-edges { display: none; }" },
    // With CITEFLOW_BENCH_TRACE=1, both drags past the edge again under a Chromium trace: the main
    // thread's time in each frame, whose tail (frames near the 16.7 ms budget) the counts of lost
    // frames are too few to show. Tracing slows everything down; these runs' own figures are not printed.
    ...(process.env.CITEFLOW_BENCH_TRACE === "1"
      ? [
          { key: "100 edge traced", n: 100, press: true, edge: true, trace: true },
          { key: "10 edge traced", n: 10, press: true, edge: true, trace: true },
        ]
      : []),
  ];
  const traced = {};
  for (const { key, n, press, edge, css, trace } of runs) {
    await closeAll(page);
    await page.evaluate((p) => void window.jupyterapp.commands.execute("docmanager:open", { path: p }), `grid-${n}.citeflow.json`);
    const nodes = page.locator(".cf-editor .react-flow__node");
    await nodes.nth(n - 1).waitFor({ timeout: 60_000 });
    await page.evaluate((css) => {
      document.getElementById("cf-bench-style")?.remove();
      if (css) document.head.append(Object.assign(document.createElement("style"), { id: "cf-bench-style", textContent: css }));
    }, css ?? "");
    await page.locator(".cf-editor .react-flow__controls-fitview").click();
    await page.waitForTimeout(500);
    const intervals = [];
    const busy = [];
    const cpu = [];
    const others = [];
    phases[key] = { press: 0, move: 0, release: 0 };
    const events = [];
    if (trace) await startTrace(cdp, events);
    for (let rep = 0; rep < REPS; rep++) {
      // Past the edge: every drag starts from the whole graph in view, so the node is inside the pane.
      if (edge && rep > 0) {
        await page.locator(".cf-editor .react-flow__controls-fitview").click();
        await page.waitForTimeout(300);
      }
      const head = await page.locator('.cf-editor .react-flow__node[data-id="n0"] .cf-node-head').boundingBox();
      const pane = await page.locator(".cf-editor .react-flow__pane").boundingBox();
      // No drag: the button stays up, the path starts near the pane's lower left corner.
      if (press && !(head.x > pane.x && head.x + 10 < pane.x + pane.width && head.y > pane.y && head.y + 5 < pane.y + pane.height))
        throw new Error(`drag ${key} #${rep}: node n0 is outside the pane, the drag would press on nothing`);
      const box = press ? head : { x: pane.x + 240, y: pane.y + pane.height - 200 };
      await page.evaluate(() => {
        window.__frames = [];
        window.__rec = true;
        const loop = (t) => {
          window.__frames.push(t);
          if (window.__rec) requestAnimationFrame(loop);
        };
        requestAnimationFrame(loop);
      });
      const mark = (name) => page.evaluate((name) => (performance.mark(name), performance.now()), name);
      await page.mouse.move(box.x + 10, box.y + 5);
      const task0 = await taskSeconds();
      const cpu0 = chromiumCpuMs(profile);
      const all0 = machineCpuMs();
      const down = await mark("cf-drag-start");
      if (press) await page.mouse.down();
      for (let i = 1; i <= 60; i++) {
        // Inside: right and down, then back (the node stays in the pane). Past the edge: left, 240 px.
        const [dx, dy] = edge ? [-4, 0] : rep % 2 ? [-4, -2] : [4, 2];
        await page.mouse.move(box.x + 10 + i * dx, box.y + 5 + i * dy);
        await page.waitForTimeout(16);
      }
      const up = await mark("cf-drag-end");
      const task1 = await taskSeconds();
      const cpu1 = chromiumCpuMs(profile);
      const all1 = machineCpuMs();
      if (press) await page.mouse.up();
      await page.waitForTimeout(200);
      const frames = await page.evaluate(() => ((window.__rec = false), window.__frames));
      const during = frames.filter((t) => t > down && t < up).length;
      busy.push((1000 * (task1 - task0)) / during);
      cpu.push((cpu1 - cpu0) / during);
      others.push((all1 - all0 - (cpu1 - cpu0)) / during);
      // Past the edge, autopan carries the node thousands of units left: undo the drop, so the next
      // drag starts from the same layout (otherwise fit-view, held at the minimum zoom, leaves the
      // node outside the pane and the next "drag" presses on nothing).
      if (edge) {
        await page.evaluate(() => window.jupyterapp.commands.execute("citeflow:undo"));
        await page.waitForTimeout(100);
      }
      for (let i = 1; i < frames.length; i++) {
        const d = frames[i] - frames[i - 1];
        intervals.push(d);
        // Where a long frame falls: pressing the mouse (selection), moving, or releasing (the edit is written to the document).
        if (d > 25) phases[key][frames[i] < down + 150 ? "press" : frames[i] > up ? "release" : "move"]++;
      }
    }
    if (trace) traced[key] = frameBusy(await stopTrace(cdp, events));
    drag[key] = {
      median: median(intervals),
      p95: pct(intervals, 0.95),
      max: Math.max(...intervals),
      long: intervals.filter((d) => d > 25).length,
      frames: intervals.length,
      busy: median(busy),
      cpu: median(cpu),
      others: median(others),
    };
  }

  // 2. 1,000 passages in a notebook output: the Citeflow inspector vs JupyterLab's HTML renderer.
  const passages = await sciFactPassages(1000);
  const bundle = passagesBundle(passages, "vitamin D fracture risk");
  await closeAll(page);
  await page.evaluate(() => void window.jupyterapp.commands.execute("notebook:create-new", { kernelName: "citeflow" }));
  await page.locator(".jp-NotebookPanel .jp-Cell").first().waitFor({ timeout: 60_000 });
  // The first cell shown can be a placeholder that the notebook's loaded content replaces (disposes)
  // a moment later: wait until the file and the kernel's session are ready before taking a cell.
  await page.evaluate(async () => {
    const panel = window.jupyterapp.shell.currentWidget;
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error("the new notebook was not ready after 60 s")), 60_000));
    await Promise.race([Promise.all([panel.context.ready, panel.sessionContext.ready]), late]);
  });
  // Polled with timers, not animation frames, and bounded: a render that never shows (or a page
  // whose frames stop) fails this benchmark with what the page held instead of hanging it.
  const render = async (data, selector) => {
    const timing = page.evaluate(
      async ({ data, selector }) => {
        const cell = window.jupyterapp.shell.currentWidget.content.widgets[0];
        const model = cell.outputArea.model;
        model.clear();
        await new Promise((r) => setTimeout(r, 50));
        const t0 = performance.now();
        model.add({ output_type: "display_data", data, metadata: {} });
        while (!cell.node.querySelector(selector)) {
          if (cell.isDisposed) throw new Error(`the notebook's cell was replaced while rendering ${selector}`);
          if (performance.now() - t0 > 30_000)
            throw new Error(
              `no ${selector} after 30 s (visibility ${document.visibilityState}, ${model.length} output(s), output HTML starts ${JSON.stringify(cell.outputArea.node.innerHTML.slice(0, 200))})`,
            );
          await new Promise((r) => setTimeout(r, 2));
        }
        return performance.now() - t0;
      },
      { data, selector },
    );
    let timer;
    const stuck = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the page did not answer within 60 s while rendering ${selector}`)), 60_000)));
    try {
      return await Promise.race([timing, stuck]);
    } finally {
      clearTimeout(timer);
    }
  };
  const ours = [];
  const peer = [];
  // The peer: JupyterLab's HTML renderer showing all 1,000 rows (the bundle's own text/html stops
  // at FALLBACK_ROWS rows, as pandas' does).
  const onlyHtml = { "text/html": passagesHtml(passages, Infinity), "text/plain": bundle["text/plain"] };
  for (let rep = 0; rep < 7; rep++) {
    // Done when the last passage is reachable: in our (windowed) table, when the table of all
    // 1,000 is laid out; in the HTML renderer, when its 1,000th row exists.
    ours.push(await render(bundle, '.cf-passages[data-count="1000"] tbody tr[data-passage]'));
    peer.push(await render(onlyHtml, ".jp-RenderedHTMLCommon tr:nth-child(1000)"));
  }

  console.log("\nPipeline editor in JupyterLab, headless Chromium (frame intervals while dragging a node)\n");
  console.log(`${REPS} drags of 60 mouse moves each\n`);
  console.log("                        frames  median     p95        max        main thread / frame  Chromium CPU / frame  other CPU / frame  intervals > 25 ms");
  for (const key of ["100", "10", "idle", "100 edge", "100 edge bare", "10 edge"]) {
    const { label, press } = runs.find((r) => r.key === key);
    const d = drag[key];
    const ph = phases[key];
    const where = press ? ` (press ${ph.press}, move ${ph.move}, release ${ph.release})` : "";
    console.log(
      `${label.padEnd(22)}  ${String(d.frames).padEnd(6)}  ${ms(d.median).padEnd(9)}  ${ms(d.p95).padEnd(9)}  ${ms(d.max).padEnd(9)}  ${ms(d.busy).padEnd(19)}  ${ms(d.cpu).padEnd(20)}  ${ms(d.others).padEnd(17)}  ${d.long}${where}`,
    );
  }
  const rate = (d) => (100 * d.long) / d.frames;
  console.log(
    `ratio 100 / 10 nodes: median ${(drag[100].median / drag[10].median).toFixed(2)}×, p95 ${(drag[100].p95 / drag[10].p95).toFixed(2)}×; long intervals ${rate(drag[100]).toFixed(2)} % vs ${rate(drag[10]).toFixed(2)} % (10 nodes) vs ${rate(drag.idle).toFixed(2)} % (no drag) (target: no dropped frames)`,
  );
  console.log(
    `main thread per frame, 100 / 10 nodes: ${(drag[100].busy / drag[10].busy).toFixed(2)}× inside, ${(drag["100 edge"].busy / drag["10 edge"].busy).toFixed(2)}× past the edge; 100 nodes / no drag: ${(drag[100].busy / drag.idle.busy).toFixed(2)}×`,
  );
  console.log(`past the edge (autopan): long intervals ${rate(drag["100 edge"]).toFixed(2)} % (100 nodes) vs ${rate(drag["10 edge"]).toFixed(2)} % (10 nodes)`);
  const edges = drag["100 edge"],
    bare = drag["100 edge bare"];
  console.log(
    `past the edge, 100 nodes, with / without edges: main thread ${(edges.busy / bare.busy).toFixed(2)}× (+${ms(edges.busy - bare.busy)}), Chromium CPU ${(edges.cpu / bare.cpu).toFixed(2)}× (+${ms(edges.cpu - bare.cpu)}) per frame`,
  );
  if (traced["100 edge traced"]) {
    console.log("\nPast the edge under a Chromium trace: main thread's time in each frame (tracing inflates it)\n");
    for (const key of ["100 edge traced", "10 edge traced"]) {
      const f = traced[key];
      console.log(
        `${key.replace(" edge traced", " nodes").padEnd(10)} frames ${String(f.frames).padEnd(5)} p50 ${ms(f.p50)}  p90 ${ms(f.p90)}  p99 ${ms(f.p99)}  over 14 ms ${f.over14} (${((100 * f.over14) / f.frames).toFixed(1)} %)`,
      );
    }
    const [a, b] = [traced["100 edge traced"], traced["10 edge traced"]];
    console.log(`ratio 100 / 10 nodes: p90 ${(a.p90 / b.p90).toFixed(2)}×, p99 ${(a.p99 / b.p99).toFixed(2)}×`);
  }
  console.log("\n1,000 SciFact passages in a notebook output (7 renders each, median)\n");
  console.log(`Citeflow passages inspector          ${ms(median(ours))}  (min ${ms(Math.min(...ours))}, target ≤ 200 ms)`);
  console.log(`JupyterLab HTML renderer, same table ${ms(median(peer))}  (min ${ms(Math.min(...peer))})`);
  console.log(`ratio (Citeflow / HTML renderer): ${(median(ours) / median(peer)).toFixed(2)}×`);
} finally {
  await ctx.close();
  await lab.stop();
}
