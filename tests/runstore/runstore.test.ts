import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadGraph, reduceRunEvent, shorten, startedRun, startRun, storedNodeProgress, type RunProgress } from "@citeflow/core";
import { Redactor, RunStore, secretsFromEnv } from "@citeflow/runstore";
import { doc, run, tempDir, testRegistry } from "../helpers.js";

const graph = (delta = 10) =>
  doc(
    { q: ["input.question"], a: ["test.const", { value: 1 }], b: ["test.add", { delta }], it: ["test.spans", { iterations: 2 }], bad: ["test.fail"], after: ["test.add"] },
    ["a.out->b.a", "bad.out->after.a"],
    { question: { type: "Question" } },
  );
const question = { id: "q1", text: "Does aspirin prevent stroke?" };

describe("run store", () => {
  it("a node an abort skipped reads 'aborted' stored as it did live", async () => {
    const store = new RunStore(tempDir());
    const chain = doc({ a: ["test.const", { value: 1 }], b: ["test.add"], c: ["test.add"] }, ["a.out->b.a", "b.out->c.a"]);
    const h = startRun(loadGraph(chain, testRegistry()), { ...store.runOptions(), breakpoints: ["b"] });
    let live: RunProgress = startedRun(h.runId, ["a", "b", "c"]);
    for await (const e of h.events) {
      live = reduceRunEvent(live, e);
      if (e.type === "node-paused") h.abort();
    }
    await h.result;
    const stored = store.readRun(h.runId);
    expect(stored.nodes.filter((n) => n.id !== "a").map((n) => [n.id, storedNodeProgress(n).status])).toEqual([
      ["b", "aborted"],
      ["c", "aborted"],
    ]);
    expect(["b", "c"].map((id) => live.nodes[id]!.status)).toEqual(["aborted", "aborted"]);
  });

  it("writes a run as JSONL with blobs and reads it back", async () => {
    const store = new RunStore(tempDir());
    const r = await run(graph(), { ...store.runOptions(), inputs: { question } });
    const rec = store.readRun(r.result.runId);
    expect(rec.status).toBe("error");
    expect(rec.graph.name).toBe("test graph");
    expect(store.runInput(r.result.runId, "question")).toEqual(question);
    const b = rec.nodes.find((n) => n.id === "b")!;
    expect(b).toMatchObject({ type: "test.add", version: 1, params: { delta: 10 }, status: "done", cache: "miss" });
    expect(b.ms).toBe(r.result.nodes.find((n) => n.id === "b")!.ms); // the record keeps the run's own timing
    expect(store.nodeOutput(r.result.runId, "b")).toEqual({ out: 11 });
    expect(rec.nodes.find((n) => n.id === "bad")).toMatchObject({ status: "error", error: { message: "boom" } });
    expect(rec.nodes.find((n) => n.id === "after")).toMatchObject({ status: "skipped", skipReason: 'upstream node "bad" failed' });
    // Outputs live in blobs, not in the JSONL.
    const lines = readFileSync(store.runPath(r.result.runId), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0].type).toBe("run-start");
    expect(lines.at(-1).type).toBe("run-end");
    expect(lines.find((l) => l.type === "node-end").outputs).toBeUndefined();
  });

  it("keeps child spans as a tree, with logs and progress", async () => {
    const store = new RunStore(tempDir());
    const r = await run(graph(), { ...store.runOptions(), inputs: { question } });
    const it = store.readRun(r.result.runId).nodes.find((n) => n.id === "it")!;
    expect(it.spans.map((s) => s.name)).toEqual(["iteration 1", "iteration 2"]);
    expect(it.spans[0]!.children.map((s) => [s.name, s.status])).toEqual([
      ["retrieve", "ok"],
      ["edit", "ok"],
    ]);
    expect(it.spans[0]!.children[0]!.data).toEqual({ hits: 10 });
    expect(it.logs[0]).toMatchObject({ level: "info", message: "done iterating" });
    expect(it.progress).toEqual({ done: 2, total: 2, message: "iteration 2" });
  });

  it("lists runs newest first with the question", async () => {
    const store = new RunStore(tempDir());
    const first = await run(graph(), { ...store.runOptions("20260101T000000Z-aaaaaa"), inputs: { question } });
    const second = await run(graph(20), { ...store.runOptions("20260101T000001Z-bbbbbb"), inputs: { question } });
    const list = store.listRuns();
    expect(list.map((r) => r.runId)).toEqual([second.result.runId, first.result.runId].sort().reverse());
    expect(list[0]).toMatchObject({ graph: "test graph", status: "error", question: question.text, nodes: 6 });
  });

  it("diffs two runs per node: params, outputs, timing", async () => {
    const store = new RunStore(tempDir());
    const a = await run(graph(10), { ...store.runOptions(), inputs: { question } });
    const b = await run(graph(20), { ...store.runOptions(), inputs: { question } });
    const d = store.diff(a.result.runId, b.result.runId);
    expect(d.sameGraph).toBe(false);
    expect(d.inputs).toEqual([]);
    const nb = d.nodes.find((n) => n.id === "b")!;
    expect(nb).toMatchObject({ change: "changed", params: [{ path: "delta", a: 10, b: 20 }], outputs: ["out"], a: { cache: "miss" }, b: { cache: "miss" } });
    expect(typeof nb.msDelta).toBe("number");
    expect(d.nodes.find((n) => n.id === "a")).toMatchObject({ change: "same", params: [], outputs: [], b: { cache: "hit" } });
  });

  it("diff reports nodes that ran in one run only", async () => {
    const store = new RunStore(tempDir());
    const a = await run(graph(), { ...store.runOptions(), inputs: { question }, to: "b" });
    const b = await run(graph(), { ...store.runOptions(), inputs: { question } });
    const d = store.diff(a.result.runId, b.result.runId);
    expect(d.nodes.find((n) => n.id === "it")!.change).toBe("added");
  });

  it("reads a run whose last line was cut short, and marks it incomplete", async () => {
    const store = new RunStore(tempDir());
    const r = await run(graph(), { ...store.runOptions(), inputs: { question } });
    const path = store.runPath(r.result.runId);
    const lines = readFileSync(path, "utf8").trim().split("\n");
    writeFileSync(path, lines.slice(0, -1).join("\n") + "\n");
    appendFileSync(path, '{"type":"node-end","runId":"x","nodeI');
    const rec = store.readRun(r.result.runId);
    expect(rec.status).toBe("incomplete");
    expect(rec.problems[0]).toMatch(/unreadable line \(cut short, probably by a crash\)/);
    expect(store.nodeOutput(r.result.runId, "b")).toEqual({ out: 11 });
  });

  it("a run file with a line cut in the middle is not ok, whatever its last line says", async () => {
    const store = new RunStore(tempDir());
    const r = await run(doc({ a: ["test.const"], b: ["test.add"] }, ["a.out->b.a"]), { ...store.runOptions(), inputs: {} });
    expect(store.readRun(r.result.runId).status).toBe("ok");
    const path = store.runPath(r.result.runId);
    const lines = readFileSync(path, "utf8").trim().split("\n");
    lines[2] = lines[2]!.slice(0, 20);
    writeFileSync(path, lines.join("\n") + "\n");
    const rec = store.readRun(r.result.runId);
    expect(rec.status).toBe("incomplete");
    expect(rec.problems).toEqual([`${path}:3: unreadable line`]);
  });

  it("a second run-start appended to a run file is not read as the run: the record keeps the first and says what was refused", async () => {
    const store = new RunStore(tempDir());
    const r = await run(doc({ a: ["test.const"], b: ["test.add"] }, ["a.out->b.a"]), { ...store.runOptions(), inputs: {} });
    const path = store.runPath(r.result.runId);
    const first = readFileSync(path, "utf8").split("\n")[0]!;
    const forged = JSON.parse(first);
    forged.graph = { ...forged.graph, name: "forged" };
    appendFileSync(path, JSON.stringify(forged) + "\n");
    const rec = store.readRun(r.result.runId);
    expect(rec.graph.name).toBe("test graph");
    expect(rec.nodes.map((n) => n.id)).toEqual(["a", "b"]);
    expect(rec.status).toBe("incomplete");
    expect(rec.problems).toEqual([`${path}:${readFileSync(path, "utf8").trim().split("\n").length}: a second run-start (the file was changed after the run wrote it): not read`]);
  });

  it("a stepped run records each node once, paused then done", async () => {
    const store = new RunStore(tempDir());
    const graph = loadGraph(doc({ a: ["test.const"], b: ["test.add"] }, ["a.out->b.a"]), testRegistry());
    const h = startRun(graph, { ...store.runOptions(), step: true });
    for await (const e of h.events) if (e.type === "node-paused") h.step();
    const rec = store.readRun((await h.result).runId);
    expect(rec.nodes.map((n) => [n.id, n.type, n.status])).toEqual([
      ["a", "test.const", "done"],
      ["b", "test.add", "done"],
    ]);
  });

  it("names what is missing", async () => {
    const store = new RunStore(tempDir());
    const r = await run(graph(), { ...store.runOptions(), inputs: { question } });
    expect(() => store.readRun("nope")).toThrow(/no run "nope"/);
    expect(() => store.nodeOutput(r.result.runId, "zzz")).toThrow(/has no node "zzz"/);
    expect(() => store.nodeOutput(r.result.runId, "bad")).toThrow(/has no output \(status: error: boom\)/);
    expect(() => store.nodeOutput(r.result.runId, "b", "nope")).toThrow(/no output port "nope"/);
    expect(() => store.runPath("../../etc/passwd")).toThrow(/not a run id/);
  });

  it("never writes secrets: environment credentials and registered ones are scrubbed", async () => {
    const secret = "sk-test-1234567890abcdef";
    process.env.CITEFLOW_TEST_API_KEY = secret;
    try {
      const dir = tempDir();
      const store = new RunStore(dir, { secrets: ["hunter2-registered"] });
      const d = doc({ leak: ["test.any", { value: `key=${secret} pw=hunter2-registered` }] });
      await run(d, { ...store.runOptions(), inputs: {} });
      const all: string[] = [];
      const walk = (p: string) => {
        for (const e of readdirSync(p, { withFileTypes: true })) e.isDirectory() ? walk(join(p, e.name)) : all.push(readFileSync(join(p, e.name), "utf8"));
      };
      walk(dir);
      const text = all.join("\n");
      expect(text).not.toContain(secret);
      expect(text).not.toContain("hunter2-registered");
      expect(text).toContain("[redacted]");
    } finally {
      delete process.env.CITEFLOW_TEST_API_KEY;
    }
  });

  it("redacts by shape and by the values of credential variables, never ordinary words", async () => {
    const env = {
      MY_SORT_KEY: "passages",
      SHORT_TOKEN: "abc123",
      DB_PASSWORD: "correct-horse-battery-staple",
      CITEFLOW_SECRETS: "PLAIN",
      PLAIN: "tiger42",
    };
    const r = new Redactor(secretsFromEnv(env));
    const shapes = [
      "AKIAIOSFODNN7EXAMPLE",
      "ghp_0123456789abcdefghijABCDEFGHIJ012345",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "xoxb-123456789012-abcdefghijkl",
      "sk-proj-abcdefghijklmnop0123456789",
      "hf_abcdefghijklmnopqrstuvwxyz012345",
      "AIzaSyA1234567890abcdefghijklmnopqrstuv",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    ];
    for (const s of shapes) expect(r.redact(`value: ${s}.`), s).toBe("value: [redacted].");
    expect(r.redact("Authorization: Bearer abcdefghijklmnop0123")).toBe("Authorization: [redacted]");
    // A credential variable's value goes when it looks like a secret; "passages" and "abc123" do not.
    expect(r.redact('{"passages":[1],"pw":"correct-horse-battery-staple","id":"abc123"}')).toBe('{"passages":[1],"pw":"[redacted]","id":"abc123"}');
    // A variable named in $CITEFLOW_SECRETS goes whatever its shape.
    expect(r.redact("the word tiger42")).toBe("the word [redacted]");

    // A stored run keeps its "passages" keys with MY_SORT_KEY=passages set, and exports read it back.
    process.env.MY_SORT_KEY = "passages";
    try {
      const store = new RunStore(tempDir());
      const d = doc({ p: ["test.any", { value: { passages: ["a"] } }] });
      const done = await run(d, { ...store.runOptions(), inputs: {} });
      expect(store.nodeOutput(done.result.runId, "p", "out")).toEqual({ passages: ["a"] });
    } finally {
      delete process.env.MY_SORT_KEY;
    }
  });

  it("redaction never rewrites data: a marked word or phrase is left alone; a key's encodings, spaced echoes and new shapes go", () => {
    const key = "sk-live-0123456789abcdefghijklmn";
    const env = { CITEFLOW_SECRETS: "WORD,PHRASE,PW", WORD: "with", PHRASE: "the results show", PW: "tiger42", SERVICE_API_KEY: key, OTHER_TOKEN: "Zq8+w/Rt5=Kd2&Lm7Np4", DATA_KEY: "/home/me/keys" };
    const r = new Redactor(secretsFromEnv(env));
    const text = "Results with the results show that with aspirin the risk fell; see /home/me/keys.";
    expect(r.redact(text)).toBe(text);
    const echoes = [encodeURIComponent("Zq8+w/Rt5=Kd2&Lm7Np4"), Buffer.from(key).toString("base64"), Buffer.from(key).toString("base64url"), [...key].join(" "), key.slice(0, 8) + " " + key.slice(8)];
    for (const e of echoes) expect(r.redact(`echo: ${e} end`), e).toBe("echo: [redacted] end");
    const shapes = [
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
      "glpat-xxxxxxxxxxxxxxxxxxxx",
      "npm_abcdefghijklmnopqrstuvwxyz0123456789",
      "ya29.a0AfH6SMBx1234567890abcdefgh",
    ];
    for (const s of shapes) expect(r.redact(`value: ${s} end`), s).toBe("value: [redacted] end");
    expect(r.redact("Authorization: Basic dXNlcjpwYXNzd29yZA==")).toBe("Authorization: [redacted]");
    expect(r.redact("OPENAI_BASE_URL=http://user:pw@host:8080/v1 and https://example.org/a?mail=x@y.z")).toBe("OPENAI_BASE_URL=http://[redacted]@host:8080/v1 and https://example.org/a?mail=x@y.z");
    // Neither a git commit nor a content hash is a secret shape.
    const sha = "0d3410f1b2c3d4e5f60718293a4b5c6d7e8f9012";
    expect(r.redact(`commit ${sha}`)).toBe(`commit ${sha}`);
  });

  it("a key echoed reversed or by its ends goes; an 8,000-character key is searched for in linear time; paths stay", () => {
    const key = "sk-live-0123456789abcdefghijklmn";
    const long = "Kq7".repeat(2_667).slice(0, 8_000);
    const r = new Redactor(secretsFromEnv({ OPENAI_API_KEY: key, CITEFLOW_SECRETS: "LONG", LONG: long }));
    expect(r.redact(`Incorrect API key provided: ${[...key].reverse().join("")}.`)).toBe("Incorrect API key provided: [redacted].");
    expect(r.redact(`Incorrect API key provided: ${key.slice(0, 12)}************${key.slice(-6)}.`)).toBe("Incorrect API key provided: [redacted]************[redacted].");
    // A key of 8,000 characters, as written and spaced out, in a text of 1 MB.
    const text = `${"lorem ipsum ".repeat(80_000)}${long} and ${[...long.slice(0, 100)].join(" ")}${long.slice(100)}.`;
    expect(r.redact(text)).toBe(`${"lorem ipsum ".repeat(80_000)}[redacted] and [redacted].`);
    // Paths of 40 characters are not AWS secret keys.
    for (const path of ["/home/alice/Projects/Citeflow2/data/x.jsonl", "data/Runs2024/scifact/dev/Heldout9/out"]) expect(r.redact(`see ${path} now`), path).toBe(`see ${path} now`);
    // An AWS secret key after "=" goes; 40 such characters inside a longer run of them are not one.
    expect(r.redact("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; region=eu")).toBe("aws_secret_access_key=[redacted]; region=eu");
    expect(r.redact("blob wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYabcd end")).toBe("blob wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYabcd end");
  });

  it("a summary never cuts a secret to a prefix that no longer looks like one", async () => {
    const store = new RunStore(tempDir());
    const question = "does the credential AKIAIOSFODNN7EXAMPLE still work against the staging bucket today?";
    const d = doc({ p: ["test.any", { value: question }] });
    const done = await run(d, { ...store.runOptions(), inputs: {} });
    const stored = readFileSync(store.runPath(done.result.runId), "utf8");
    expect(stored).not.toContain("AKIAIOSFOD");
    expect(stored).toContain("does the credential");
    expect(shorten("does the credential AKIAIOSFODNN7EXAMPLE works", 30)).toBe("does the credential…");
    expect(shorten("AKIAIOSFODNN7EXAMPLEAKIAIOSFODNN7EXAMPLE", 10)).toBe("…");
    expect(shorten("short", 10)).toBe("short");
  });

  it("cache clear forgets results but keeps runs", async () => {
    const store = new RunStore(tempDir());
    const r = await run(graph(), { ...store.runOptions(), inputs: { question } });
    expect(store.cache.clear()).toBeGreaterThan(0);
    const again = await run(graph(), { ...store.runOptions(), inputs: { question } });
    expect(again.byId.b!.cache).toBe("miss");
    expect(store.readRun(r.result.runId).status).toBe("error");
  });

  it("cache clear while another process writes cache entries: no error on either side, and an entry written after the last clear is there", async () => {
    const dir = tempDir();
    const store = new RunStore(dir);
    // The other process writes 300 entries, as a run does, while this one clears the cache over
    // and over; then, told that the clearing stopped, one more, and prints its key.
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { createHash } from "node:crypto";
import { once } from "node:events";
import { RunStore } from "@citeflow/runstore";
const store = new RunStore(process.argv[1]);
const put = async (i) => {
  const key = createHash("sha256").update(String(i)).digest("hex");
  const value = { i };
  await store.cache.set(key, { nodeType: "test.const", version: 1, outputs: { out: value }, hashes: { out: createHash("sha256").update(JSON.stringify(value)).digest("hex") } });
  return key;
};
for (let i = 0; i < 300; i++) await put(i);
process.stdout.write("written\\n");
await once(process.stdin, "data");
process.stdout.write(await put(300));`,
        dir,
      ],
      { cwd: fileURLToPath(new URL("../../packages/runstore/", import.meta.url)), stdio: ["pipe", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on("exit", r));
    let clears = 0;
    while (!stdout.includes("written") && child.exitCode === null) {
      store.cache.clear(); // ENOTEMPTY here, or a failed write there, was the bug
      clears++;
      await new Promise((r) => setTimeout(r, 1));
    }
    child.stdin.end("go\n");
    expect(await exited, stderr).toBe(0);
    expect(clears).toBeGreaterThan(1);
    const last = stdout.split("\n").at(-1)!;
    expect(await store.cache.get(last)).toMatchObject({ nodeType: "test.const", outputs: { out: { i: 300 } } });
    expect(readdirSync(dir).filter((f) => f.includes(".clearing"))).toEqual([]);
  }, 60_000);
});
