/**
 * A probe of the CLI as a hostile or careless user would use it: new cases in each class of issue
 * 34 (keys, writes, a full disk, redaction, terminal output, bounded work, readers), each run
 * through the built CLI and sorted into what happened. The table is printed; the test fails when a
 * case crashed or was unclear, silently accepted something harmful, or lost data.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const DATA = process.env.CITEFLOW_DATA!;
const MODELS = process.env.CITEFLOW_MODELS!;
const KEY = "sk-probe-7f3a9c0e5b1d2468ace0";
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

type Outcome = "refused clearly" | "handled" | "crashed or unclear" | "silently accepted harmful" | "data lost";
interface Result {
  code: number;
  out: string;
}

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, limitBlocks?: number): Promise<Result> {
  const base = { ...process.env, CITEFLOW_RUNS: join(cwd, "runs"), OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "", CITEFLOW_ALLOWED_ENDPOINTS: "", CITEFLOW_PROMPTS: "", ...env };
  const [cmd, argv] = limitBlocks ? ["sh", ["-c", `ulimit -f ${limitBlocks}; exec "$0" "$@"`, process.execPath, bin, ...args]] : [process.execPath, [bin, ...args]];
  return new Promise((resolve) =>
    execFile(cmd as string, argv as string[], { cwd, env: base, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr })),
  );
}

/** A crash, not an answer: a stack trace or a JavaScript error where a sentence should be. */
const crashed = (r: Result) => /\n\s+at .+:\d+:\d+|TypeError|ReferenceError|Cannot read properties|undefined is not/.test(r.out);

function sort(r: Result, o: { refused?: RegExp; handled?: (r: Result) => boolean; harmful?: (r: Result) => boolean; lost?: () => boolean }): Outcome {
  if (o.lost?.()) return "data lost";
  if (o.harmful?.(r)) return "silently accepted harmful";
  if (crashed(r)) return "crashed or unclear";
  if (r.code !== 0 && o.refused?.test(r.out)) return "refused clearly";
  if (r.code === 0 && o.handled?.(r)) return "handled";
  return "crashed or unclear";
}

let dir: string;
let store: string;
let server: Loopback;
const seen: Array<{ cls: string; name: string; outcome: Outcome; out: string }> = [];

function graph(name: string, answer: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  const path = join(dir, `${name}.citeflow.json`);
  const doc = {
    citeflow: 1,
    name,
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "q", type: "input.question", version: 1, params: {} },
      { id: "r", type: "retrieve.lexical", version: 1, params: { store, k: 2 } },
      { id: "g", type: "generate.answer", version: 3, params: { generator: "llm", model: "m", maxTokens: 20, retries: 0, ...answer } },
    ],
    edges: [
      { from: "q.question", to: "r.question" },
      { from: "q.question", to: "g.question" },
      { from: "r.passages", to: "g.passages" },
    ],
    ...extra,
  };
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const everything = (d: string): string =>
  existsSync(d)
    ? readdirSync(d, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
        .join("\n")
    : "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "citeflow-probe-")); // kept across the cases, removed after them
  store = join(dir, "store");
  server = await loopback((req, res) =>
    req.path.includes("echo") ? json(res, 401, { error: { message: `bad key ${Buffer.from(KEY).toString("base64")}` } }) : json(res, 200, completion("Fine [1].")),
  );
  const r = await cli(["ingest", join(DATA, "scifact", "corpus.jsonl"), "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS, "--limit", "20"], dir);
  if (r.code !== 0) throw new Error(r.out);
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
  const classes = [...new Set(seen.map((s) => s.cls))];
  const cols: Outcome[] = ["refused clearly", "handled", "crashed or unclear", "silently accepted harmful", "data lost"];
  const rows = classes.map((c) => [c, String(seen.filter((s) => s.cls === c).length), ...cols.map((o) => String(seen.filter((s) => s.cls === c && s.outcome === o).length))]);
  console.log(["| class | tried | " + cols.join(" | ") + " |", "|---|" + "---|".repeat(cols.length + 1), ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n"));
});

const CASES: Array<{ cls: string; name: string; run: () => Promise<{ outcome: Outcome; out: string }> }> = [
  // 1. keys
  {
    cls: "keys",
    name: "chat baseUrl with a user:password the graph chose",
    run: async () => {
      const r = await cli(["run", graph("k1", { baseUrl: `http://user:pw@127.0.0.1:${new URL(server.url).port}/v1` }), "-q", "vitamin D"], dir);
      return { out: r.out, outcome: sort(r, { refused: /which you have not configured/, harmful: () => server.requests.length > 0 || r.out.includes(":pw@") }) };
    },
  },
  {
    cls: "keys",
    name: "a consented mirror ($CITEFLOW_ALLOWED_ENDPOINTS) gets the request, never $OPENAI_API_KEY",
    run: async () => {
      const before = server.requests.length;
      const r = await cli(["run", graph("k2", { baseUrl: `${server.url}/v1` }), "-q", "vitamin D"], dir, { CITEFLOW_ALLOWED_ENDPOINTS: server.url });
      const sent = server.requests.slice(before);
      return { out: r.out, outcome: sort(r, { handled: () => sent.length === 1, harmful: () => sent.some((q) => JSON.stringify(q.headers).includes(KEY)) }) };
    },
  },
  {
    cls: "keys",
    name: "a Qdrant store on a server the graph names",
    run: async () => {
      const path = join(dir, "k3.citeflow.json");
      writeFileSync(
        path,
        JSON.stringify({
          citeflow: 1,
          name: "k3",
          inputs: { question: { type: "Question" } },
          nodes: [
            { id: "q", type: "input.question", version: 1, params: {} },
            { id: "r", type: "retrieve.lexical", version: 1, params: { store: `qdrant:${server.url}/collections/x` } },
          ],
          edges: [{ from: "q.question", to: "r.question" }],
        }),
      );
      const before = server.requests.length;
      const r = await cli(["run", path, "-q", "x"], dir, { QDRANT_API_KEY: KEY });
      return { out: r.out, outcome: sort(r, { refused: /not configured|consent|allow/i, harmful: () => server.requests.length > before }) };
    },
  },
  // 2. writes
  {
    cls: "writes",
    name: "export --out whose README.md is a link to a file elsewhere",
    run: async () => {
      const out = join(dir, "w1");
      mkdirSync(out, { recursive: true });
      const victim = join(dir, "victim-readme.txt");
      writeFileSync(victim, "keep");
      symlinkSync(victim, join(out, "README.md"));
      const r = await cli(["export", "--format", "sft", "--out", out, "--split", "1"], dir);
      return { out: r.out, outcome: sort(r, { refused: /symbolic link/, harmful: () => readFileSync(victim, "utf8") !== "keep" }) };
    },
  },
  {
    cls: "writes",
    name: "a run store whose runs/ folder is a link elsewhere",
    run: async () => {
      const runs = join(dir, "w2");
      const elsewhere = join(dir, "w2-elsewhere");
      mkdirSync(runs, { recursive: true });
      mkdirSync(elsewhere);
      symlinkSync(elsewhere, join(runs, "runs"));
      const r = await cli(["run", graph("w2g"), "-q", "x"], dir, { CITEFLOW_RUNS: runs });
      return { out: r.out, outcome: sort(r, { refused: /symbolic link/, harmful: () => readdirSync(elsewhere).length > 0 }) };
    },
  },
  {
    cls: "writes",
    name: "a cache folder that is a link elsewhere",
    run: async () => {
      const runs = join(dir, "w3");
      const elsewhere = join(dir, "w3-elsewhere");
      mkdirSync(runs, { recursive: true });
      mkdirSync(elsewhere);
      symlinkSync(elsewhere, join(runs, "cache"));
      const r = await cli(["run", graph("w3g"), "-q", "x"], dir, { CITEFLOW_RUNS: runs });
      return { out: r.out, outcome: sort(r, { refused: /symbolic link/, harmful: () => readdirSync(elsewhere).length > 0 }) };
    },
  },
  // 3. a full disk (a file-size limit)
  {
    cls: "full disk",
    name: "export over an earlier one, under a 4 KB file limit: the earlier train.jsonl stays",
    run: async () => {
      const out = join(dir, "d1");
      const first = await cli(["export", "--format", "sft", "--out", out, "--split", "1"], dir);
      const before = existsSync(join(out, "train.jsonl")) ? readFileSync(join(out, "train.jsonl"), "utf8") : "";
      const big = await cli(["run", graph("d1g", {}, {}), "-q", "x".repeat(6000)], dir);
      const r = await cli(["export", "--format", "sft", "--out", out, "--split", "1"], dir, {}, 8);
      const after = readFileSync(join(out, "train.jsonl"), "utf8");
      const temps = readdirSync(out).filter((f) => f.endsWith(".tmp"));
      return {
        out: first.out + big.out + r.out,
        outcome: sort(r, {
          refused: /could not write .*train\.jsonl: the file-size limit was reached; nothing was changed there/,
          handled: () => true,
          lost: () => (r.code !== 0 && after !== before) || temps.length > 0,
        }),
      };
    },
  },
  {
    cls: "full disk",
    name: "a run whose blob cannot be written: the run says so; earlier runs stay readable",
    run: async () => {
      const r = await cli(["run", graph("d2g"), "-q", "y".repeat(20000)], dir, {}, 8);
      const list = await cli(["runs", "list", "--json"], dir);
      return { out: r.out, outcome: sort(r, { refused: /could not write .*: the file-size limit was reached/, lost: () => list.code !== 0 || JSON.parse(list.out.split("\n")[0]!).length === 0 }) };
    },
  },
  // 4. redaction
  {
    cls: "redaction",
    name: "a server's 401 echoing the key in base64",
    run: async () => {
      const r = await cli(["run", graph("r1"), "-q", "x"], dir, { OPENAI_BASE_URL: `${server.url}/echo/v1` });
      const b64 = Buffer.from(KEY).toString("base64");
      return { out: r.out, outcome: sort(r, { refused: /401/, harmful: () => r.out.includes(b64) || everything(join(dir, "runs")).includes(b64) }) };
    },
  },
  {
    cls: "redaction",
    name: "$OPENAI_BASE_URL with a password, printed and stored",
    run: async () => {
      const r = await cli(["run", graph("r2"), "-q", "x"], dir, { OPENAI_BASE_URL: `http://me:hunter2pass@127.0.0.1:${new URL(server.url).port}/v1` });
      return {
        out: r.out,
        outcome: sort(r, {
          refused: /carries a user name and password, which a request cannot send in its URL/,
          harmful: () => r.out.includes("hunter2pass") || everything(join(dir, "runs")).includes("hunter2pass"),
        }),
      };
    },
  },
  {
    cls: "redaction",
    name: "a marked secret variable holding the word 'the' leaves text alone",
    run: async () => {
      const r = await cli(["run", graph("r3"), "-q", "What is the effect of the vitamin?"], dir, { OPENAI_BASE_URL: `${server.url}/v1`, CITEFLOW_SECRETS: "WORDY", WORDY: "the" });
      return { out: r.out, outcome: sort(r, { handled: () => !r.out.includes("[redacted]"), lost: () => everything(join(dir, "runs")).includes("What is [redacted]") }) };
    },
  },
  // 5. terminal
  {
    cls: "terminal",
    name: "runs list with a graph name carrying OSC 52 and a title sequence",
    run: async () => {
      await cli(["run", graph("t1", {}, { name: "t1 \x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07" }), "-q", "x"], dir, { OPENAI_BASE_URL: `${server.url}/v1` });
      const r = await cli(["runs", "list"], dir);
      return { out: r.out, outcome: sort(r, { handled: () => r.out.includes("\\u001b]52"), harmful: () => ACTIVE.test(r.out) }) };
    },
  },
  {
    cls: "terminal",
    name: "validate of a node type name with a clear-screen sequence",
    run: async () => {
      const path = join(dir, "t2.citeflow.json");
      writeFileSync(path, JSON.stringify({ citeflow: 1, name: "t2", nodes: [{ id: "a", type: "x\x1b[2J\x1b[H", version: 1, params: {} }], edges: [] }));
      const r = await cli(["validate", path], dir);
      return { out: r.out, outcome: sort(r, { refused: /unknown node type|x\\u001b\[2J/, harmful: () => ACTIVE.test(r.out) }) };
    },
  },
  // 6. bounded work
  {
    cls: "bounded work",
    name: "a 2 MB prompt in a graph",
    run: async () => {
      const r = await cli(["run", graph("b1", { prompt: "{{question.text}} " + "x".repeat(2_000_000) }), "-q", "x"], dir, { OPENAI_BASE_URL: `${server.url}/v1` });
      return { out: r.out.slice(0, 4000), outcome: sort(r, { refused: /the limit is 1000000/ }) };
    },
  },
  {
    cls: "bounded work",
    name: "{{#each}} nested 20 deep in a prompt",
    run: async () => {
      const r = await cli(["run", graph("b2", { prompt: "{{#each passages}}".repeat(20) + "x" + "{{/each}}".repeat(20) }), "-q", "x"], dir, { OPENAI_BASE_URL: `${server.url}/v1` });
      return { out: r.out, outcome: sort(r, { refused: /nested 17 deep; the limit is 16/ }) };
    },
  },
  {
    cls: "bounded work",
    name: "a graph file that is a FIFO",
    run: async () => {
      const fifo = join(dir, "b3.citeflow.json");
      await new Promise((r) => spawn("mkfifo", [fifo]).on("exit", r));
      const r = await cli(["run", fifo, "-q", "x"], dir);
      return { out: r.out, outcome: sort(r, { refused: /is a FIFO: a graph file must be a regular file/ }) };
    },
  },
  {
    cls: "bounded work",
    name: "a chat model param naming a .gguf that claims 2^40 tensors",
    run: async () => {
      const gguf = join(dir, "evil.gguf");
      const b = Buffer.alloc(64);
      b.write("GGUF", 0, "latin1");
      b.writeUInt32LE(3, 4);
      b.writeBigUInt64LE(1n << 40n, 8);
      writeFileSync(gguf, b);
      const r = await cli(["run", graph("b4", { model: gguf }), "-q", "x"], dir);
      return { out: r.out, outcome: sort(r, { refused: /claims 1099511627776 tensors/ }) };
    },
  },
  {
    cls: "bounded work",
    name: "a LoRA adapter (base+adapter) whose file claims 2^40 tensors, on a sane base",
    run: async () => {
      const header = (tensors: bigint) => {
        const b = Buffer.alloc(64);
        b.write("GGUF", 0, "latin1");
        b.writeUInt32LE(3, 4);
        b.writeBigUInt64LE(tensors, 8);
        return b;
      };
      writeFileSync(join(dir, "sane.gguf"), header(0n));
      writeFileSync(join(dir, "evil-adapter.gguf"), header(1n << 40n));
      const r = await cli(["run", graph("b5", { model: `${join(dir, "sane.gguf")}+${join(dir, "evil-adapter.gguf")}` }), "-q", "x"], dir);
      return { out: r.out, outcome: sort(r, { refused: /evil-adapter\.gguf claims 1099511627776 tensors/ }) };
    },
  },
  // 7. readers
  {
    cls: "readers",
    name: "a corpus that is a FIFO",
    run: async () => {
      const fifo = join(dir, "c1.jsonl");
      await new Promise((r) => spawn("mkfifo", [fifo]).on("exit", r));
      const r = await cli(["ingest", fifo, "--store", join(dir, "s1"), "--embedder", "static-use-en"], dir);
      return { out: r.out, outcome: sort(r, { refused: /is a FIFO: give a corpus file/ }) };
    },
  },
  {
    cls: "readers",
    name: "a CSV whose ids hold NUL and escape characters, beside good rows",
    run: async () => {
      const csv = join(dir, "c2.csv");
      writeFileSync(csv, 'id,text\n"a\x00b",Alpha text.\n"c\x1b[2J",Gamma text.\ngood,Good text.\n');
      const s = join(dir, "s2");
      const r = await cli(["ingest", csv, "--format", "csv", "--map", "id=id,text=text", "--store", s, "--embedder", "static-use-en", "--json"], dir);
      return {
        out: r.out,
        outcome: sort(r, {
          handled: () => JSON.parse(r.out.split("\n").find((l) => l.startsWith("{"))!).documents === 1 && /control character/.test(r.out),
          harmful: () => ACTIVE.test(r.out.replace(/\n/g, "")),
        }),
      };
    },
  },
  {
    cls: "readers",
    name: "an empty corpus file",
    run: async () => {
      const empty = join(dir, "c3.jsonl");
      writeFileSync(empty, "");
      const r = await cli(["ingest", empty, "--store", join(dir, "s3"), "--embedder", "static-use-en"], dir);
      return { out: r.out, outcome: sort(r, { refused: /no documents|nothing to ingest|no passages/i, handled: () => /0 documents/.test(r.out) }) };
    },
  },
  {
    cls: "readers",
    name: "a gzip corpus named .jsonl.gz",
    run: async () => {
      const { gzipSync } = await import("node:zlib");
      const gz = join(dir, "c4.jsonl.gz");
      writeFileSync(gz, gzipSync(readFileSync(join(DATA, "scifact", "corpus.jsonl")).subarray(0, 20_000)));
      const r = await cli(["ingest", gz, "--store", join(dir, "s4"), "--embedder", "static-use-en", "--json"], dir);
      return { out: r.out, outcome: sort(r, { handled: () => JSON.parse(r.out.split("\n").find((l) => l.startsWith("{"))!).documents > 5 }) };
    },
  },
];

describe("probe: hostile and careless input through the CLI", () => {
  for (const c of CASES)
    it(`${c.cls}: ${c.name}`, async () => {
      const { outcome, out } = await c.run();
      seen.push({ cls: c.cls, name: c.name, outcome, out });
      expect(["refused clearly", "handled"], `${outcome}\n${out.slice(0, 2000)}`).toContain(outcome);
    }, 120_000);
});
