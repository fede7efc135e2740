import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Channels, type ConnectionInfo } from "./channels.js";
import { COMM_TARGET } from "@citeflow/core";
import { citeflowTarget } from "./citeflow-comm.js";
import { Kernel } from "./kernel.js";
import { defaultRoot, Runtime } from "./runtime.js";

/** Code run before the first cell: `display` is available in every cell without an import. */
const PRELUDE = `import { display } from "citeflow";`;

function connectionFile(argv: string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--config-path" || a === "-f" || a === "--connection-file") {
      const v = argv[i + 1];
      if (v) return v;
    }
    const m = /^--(?:config-path|connection-file)=(.+)$/.exec(a);
    if (m) return m[1]!;
  }
  throw new Error("citeflow kernel: give the connection file: --config-path <file> (Jupyter passes {connection_file})");
}

function readConnection(path: string): ConnectionInfo {
  let info: ConnectionInfo;
  try {
    info = JSON.parse(readFileSync(path, "utf8")) as ConnectionInfo;
  } catch (e) {
    throw new Error(`citeflow kernel: cannot read connection file ${path}: ${(e as Error).message}`, { cause: e });
  }
  for (const k of ["ip", "transport", "shell_port", "control_port", "stdin_port", "iopub_port", "hb_port"] as const)
    if (info[k] === undefined) throw new Error(`citeflow kernel: connection file ${path} has no "${k}"`);
  return info;
}

/** Exit when the process that started us (the Jupyter server, `$JPY_PARENT_PID`) is gone. */
function watchParent(onGone: () => void): void {
  const given = Number(process.env.JPY_PARENT_PID);
  const parent = given || process.ppid;
  const timer = setInterval(() => {
    let alive = given ? true : process.ppid === parent;
    try {
      process.kill(parent, 0);
    } catch {
      alive = false;
    }
    if (!alive) onGone();
  }, 1000);
  timer.unref();
}

export async function main(argv: string[]): Promise<void> {
  const realStderr = process.stderr.write.bind(process.stderr);
  const log = (s: string) => void realStderr(`[citeflow kernel] ${s}\n`);
  process.removeAllListeners("warning");
  process.on("warning", (w) => {
    if (w.name !== "ExperimentalWarning") log(`${w.name}: ${w.message}`);
  });
  const info = readConnection(connectionFile(argv));
  const channels = new Channels(info);
  await channels.bind();
  const runtime = new Runtime(defaultRoot());
  const kernel = new Kernel(channels, runtime, randomUUID(), log);
  kernel.comms.register(COMM_TARGET, citeflowTarget);
  const prelude = await runtime.execute(PRELUDE);
  if (prelude.status === "error") log(`prelude failed: ${prelude.evalue}`);

  const exit = (code: number) => {
    channels.close();
    runtime.close();
    process.exit(code);
  };
  process.on("SIGINT", () => kernel.interrupt());
  process.on("SIGTERM", () => exit(0));
  process.on("unhandledRejection", (e) => log(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`));
  watchParent(() => {
    log("the parent process is gone: exiting");
    exit(0);
  });
  await kernel.start();
  log(`ready (pid ${process.pid})`);
  await kernel.stopped;
  setTimeout(() => exit(0), 50);
}
