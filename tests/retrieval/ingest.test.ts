import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LanceStore, readBeirCorpus } from "@citeflow/retrieval";
import { tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const DATA = process.env.CITEFLOW_DATA;
const MODELS = process.env.CITEFLOW_MODELS;
if (!DATA || !MODELS) throw new Error("CITEFLOW_DATA and CITEFLOW_MODELS must be set (vitest.config.ts defaults them to the repository's data/ and tests/fixtures/models/)");

function ingest(store: string, extra: string[] = [], onStderr?: (text: string, kill: () => void) => void) {
  const args = [bin, "ingest", join(DATA!, "scifact", "corpus.jsonl"), "--store", store, "--embedder", "static-use-en", "--models-dir", MODELS!, "--limit", "200", "--batch", "32", "--json", ...extra];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => {
    stderr += d;
    onStderr?.(stderr, () => child.kill("SIGKILL"));
  });
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((r) => child.on("exit", (code, signal) => r({ code, signal, stdout, stderr })));
  return Object.assign(done, { pid: child.pid!, done });
}

describe("citeflow ingest", () => {
  it("killed mid-ingest, a re-run finishes without duplicates or loss", async () => {
    const store = tempDir();
    const killed = await ingest(store, [], (err, kill) => {
      const added = [...err.matchAll(/(\d+) passages added/g)].map((m) => Number(m[1]));
      if ((added.at(-1) ?? 0) >= 64) kill();
    });
    expect(killed.signal).toBe("SIGKILL");
    const partial = await (await LanceStore.open(store)).count();
    expect(partial).toBeGreaterThanOrEqual(64);
    // The store said what it is made of before its first batch, and that this ingest did not finish.
    expect(await (await LanceStore.open(store)).meta()).toMatchObject({ embedder: "static-use-en", chunker: "openscholar-256", dimensions: 256, incomplete: true });
    // Resumed with another embedder or chunker: refused with both named, and nothing written.
    const other = await ingest(store, ["--embedder", "tiny-bert-random"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /was built with embedder "static-use-en" and chunker "openscholar-256"; ingesting with "tiny-bert-random" \/ "openscholar-256" would mix them: use another store, or resume with the embedder and chunker it was started with/,
    );
    const chunker = await ingest(store, ["--chunker", "verifai"]);
    expect(chunker.code).toBe(1);
    expect(chunker.stderr).toMatch(/ingesting with "static-use-en" \/ "verifai-512" would mix them/);
    expect(await (await LanceStore.open(store)).count()).toBe(partial);

    const done = await ingest(store);
    expect(done.code).toBe(0);
    const summary = JSON.parse(done.stdout);
    expect(summary.skipped).toBeGreaterThanOrEqual(partial);
    const full = await ingest(tempDir());
    const expected = JSON.parse(full.stdout).total;
    expect(summary.total).toBe(expected);
    const s = await LanceStore.open(store);
    expect(await s.count()).toBe(expected);
    expect(await s.meta()).toMatchObject({ embedder: "static-use-en", chunker: "openscholar-256", passages: expected, dimensions: 256 });
    expect((await s.meta())!.incomplete).toBeUndefined();
  }, 120_000);

  it("killed while it writes its first version, the store resumes: the unfinished write is set aside, then the same ingest finishes", async () => {
    const expected = JSON.parse((await ingest(tempDir())).stdout).total;
    // kill -9 the moment passages.lance appears, before or while its first version is committed.
    const store = tempDir();
    const child = ingest(store);
    const watch = setInterval(() => existsSync(join(store, "passages.lance")) && process.kill(child.pid, "SIGKILL"), 1);
    await child.done;
    clearInterval(watch);
    const resumed = await ingest(store);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await (await LanceStore.open(store)).count()).toBe(expected);
    // The exact state of such a kill: a table folder without its _versions, the meta saying no batch finished.
    const broken = tempDir();
    expect((await ingest(broken, ["--limit", "20"])).code).toBe(0);
    rmSync(join(broken, "passages.lance", "_versions"), { recursive: true });
    const meta = JSON.parse(readFileSync(join(broken, "citeflow-store.json"), "utf8"));
    writeFileSync(join(broken, "citeflow-store.json"), JSON.stringify({ ...meta, passages: 0, incomplete: true }));
    const again = await ingest(broken, ["--limit", "20"]);
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(broken).filter((f) => f.startsWith("passages.lance.unfinished-"))).toHaveLength(1);
    // A store with finished batches whose table is damaged is not set aside: the error names it and says what to do.
    rmSync(join(broken, "passages.lance", "_versions"), { recursive: true });
    const damaged = await ingest(broken, ["--limit", "20"]);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain(`store ${broken} could not be read or written`);
    expect(damaged.stderr).toContain("ingest the corpus again into a new folder");
  }, 180_000);

  it("a second ingest of a store being written is refused with a message naming the first; a killed one's lock is taken over", async () => {
    const store = tempDir();
    const holder = spawn("sleep", ["60"]);
    writeFileSync(join(store, "ingest.lock"), JSON.stringify({ pid: holder.pid, startedAt: "2026-11-26T10:00:00.000Z" }));
    const refused = await ingest(store);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`is being written by another ingest (process ${holder.pid}, started 2026-11-26T10:00:00.000Z)`);
    holder.kill("SIGKILL");
    await new Promise((r) => holder.on("exit", r));
    const after = await ingest(store);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).added).toBeGreaterThan(200);
    expect(existsSync(join(store, "ingest.lock"))).toBe(false);
  });

  it("reports bad lines with numbers and still ingests the rest", async () => {
    const { writeFileSync } = await import("node:fs");
    const corpus = join(tempDir(), "c.jsonl");
    writeFileSync(corpus, ['{"_id":"a","title":"A","text":"alpha beta"}', "{oops", '{"_id":"b","title":"B","text":"gamma delta"}'].join("\n"));
    const child = spawn(process.execPath, [bin, "ingest", corpus, "--format", "beir", "--store", tempDir(), "--embedder", "static-use-en", "--models-dir", MODELS!, "--json"]);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const code = await new Promise((r) => child.on("exit", r));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ documents: 2, added: 2, badLines: 1, problems: [{ line: 2 }] });
    expect(err).toContain(`${corpus}:2: not valid JSON`);
  });

  it("a document with an empty id, empty text or a repeated id is listed with its line and left out; the rest go in", async () => {
    const { writeFileSync } = await import("node:fs");
    const dir = tempDir();
    const corpus = join(dir, "c.jsonl");
    writeFileSync(
      corpus,
      [
        '{"_id":"","title":"Nameless","text":"no id here"}',
        '{"_id":"a","title":"A","text":"alpha beta"}',
        '{"_id":"e","title":"Only a title","text":"   "}',
        '{"_id":"a","title":"A again","text":"a second alpha"}',
        '{"_id":"b","title":{"not":"text"},"text":["not", "a string"]}',
        '{"_id":"c","title":"C","text":"gamma delta"}',
      ].join("\n"),
    );
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, "ingest", ...args, "--embedder", "static-use-en", "--models-dir", MODELS!, "--json"]);
        let out = "";
        let err = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (err += d));
        child.on("exit", (code) => resolve({ code, out, err }));
      });
    const store = join(dir, "store");
    const r = await run([corpus, "--format", "beir", "--store", store]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ documents: 2, added: 2, total: 2, badLines: 4 });
    expect(r.err).toContain(`${corpus}:1: empty document id`);
    expect(r.err).toContain(`${corpus}:3: document e: empty text (a title alone is not indexed)`);
    expect(r.err).toContain(`${corpus}:4: document a: the same id as line 2; the first is kept`);
    expect(r.err).toContain(`${corpus}:5: document b: no "abstract" (list of sentences) or "text"`);
    const s = await LanceStore.open(store);
    expect((await s.passages([{ id: "a#0" }])).get("a#0")!.title).toBe("A");

    // A --map that matches no line: every line listed, and why nothing went in.
    const bad = await run([corpus, "--format", "jsonl", "--map", "id=pmid,text=abstract", "--store", join(dir, "store2")]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`${corpus}:1: no id field "pmid"`);
    expect(bad.err).toContain(`${corpus}:6: no id field "pmid"`);
    expect(bad.err).toContain(`no document of ${corpus} could be read: all 6 line(s) have a problem (listed above); check --map id=pmid,text=abstract`);
  });

  it("refuses to mix embedders in one store", async () => {
    const store = tempDir();
    expect((await ingest(store, ["--limit", "5"])).code).toBe(0);
    const other = await ingest(store, ["--limit", "5", "--embedder", "tiny-bert-random"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/was built with embedder "static-use-en".*use another store/);
  });

  it("search and eval retrieval run over the store", async () => {
    const { writeFileSync } = await import("node:fs");
    const store = tempDir();
    expect((await ingest(store, ["--limit", "40"])).code).toBe(0);
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, ...args, "--store", store, "--models-dir", MODELS!]);
        let stdout = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.on("exit", (code) => resolve({ code, stdout }));
      });
    let first: { id: string; title: string } | undefined;
    for await (const d of readBeirCorpus(join(DATA!, "scifact", "corpus.jsonl"))) {
      first = { id: `${d.docId}#0`, title: d.title };
      break;
    }
    const hits = JSON.parse((await run(["search", first!.title, "--mode", "lexical", "-k", "3", "--json"])).stdout);
    const docId = first!.id.split("#")[0];
    expect(hits[0].id.split("#")[0]).toBe(docId);
    const dir = tempDir();
    writeFileSync(join(dir, "q.jsonl"), [JSON.stringify({ id: 1, claim: first!.title }), JSON.stringify({ id: 2, claim: "unjudged" })].join("\n"));
    writeFileSync(join(dir, "qrels.tsv"), `query-id\tcorpus-id\tscore\n1\t${docId}\t1\n`);
    for (const mode of ["lexical", "dense", "hybrid"]) {
      const r = await run(["eval", "retrieval", "--queries", join(dir, "q.jsonl"), "--qrels", join(dir, "qrels.tsv"), "--mode", mode, "--json"]);
      expect(r.code).toBe(0);
      const scores = JSON.parse(r.stdout);
      expect(scores.queries).toBe(1);
      expect(scores["recall@100"]).toBe(1);
      if (mode !== "dense") expect(scores["mrr@10"]).toBe(1);
    }
    // --compare: both sides' scores on the same queries, B − A and its bootstrap interval.
    const c = JSON.parse(
      (await run(["eval", "retrieval", "--queries", join(dir, "q.jsonl"), "--qrels", join(dir, "qrels.tsv"), "--mode", "lexical", "--compare", "none", "pair-rerank-scifact", "--json"])).stdout,
    );
    expect([c.metric, c.a.name, c.b.name, c.items]).toEqual(["nDCG@10", "lexical alone", "lexical + rerank pair-rerank-scifact", 1]);
    expect(c.a.score).toBe(1);
    expect(c.a.scores).toEqual({ "ndcg@10": 1, "recall@100": 1, "mrr@10": 1, queries: 1 });
    expect(c.b.scores["ndcg@10"]).toBe(c.b.score);
    expect(c.b.scores["recall@100"]).toBe(1);
    expect(c.difference).toBeCloseTo(c.b.score - 1, 12);
    // --parallel: several queries retrieved at once score exactly as one at a time.
    const docs: Array<{ docId: string; title: string }> = [];
    for await (const d of readBeirCorpus(join(DATA!, "scifact", "corpus.jsonl"))) if (docs.push({ docId: d.docId, title: d.title }) === 6) break;
    writeFileSync(join(dir, "q6.jsonl"), docs.map((d, i) => JSON.stringify({ id: i, claim: d.title.split(" ").slice(0, 6).join(" ") })).join("\n"));
    writeFileSync(join(dir, "qrels6.tsv"), `query-id\tcorpus-id\tscore\n${docs.map((d, i) => `${i}\t${d.docId}\t1`).join("\n")}\n`);
    const six = (...more: string[]) => run(["eval", "retrieval", "--queries", join(dir, "q6.jsonl"), "--qrels", join(dir, "qrels6.tsv"), "--mode", "hybrid", "--json", ...more]);
    const [one, three] = [await six(), await six("--parallel", "3")];
    expect([one.code, three.code]).toEqual([0, 0]);
    expect(JSON.parse(three.stdout)).toEqual(JSON.parse(one.stdout));
    expect(JSON.parse(one.stdout).queries).toBe(6);
  }, 60_000);

  it("offline with a model that is not there: names it and where it looked", async () => {
    const r = await ingest(tempDir(), ["--embedder", "Xenova/all-MiniLM-L6-v2"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('model "Xenova/all-MiniLM-L6-v2" not found');
    expect(r.stderr).toContain(join(MODELS!, "Xenova/all-MiniLM-L6-v2/config.json"));
  });
});
