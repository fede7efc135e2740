import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { NO_ANSWER } from "@citeflow/core";
import { tempDir } from "../helpers.js";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { DATA, MODELS } from "../scifact.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
/** The models Citeflow trained and ships (what `npm run models` lays into the models home). */
const SHIPPED = fileURLToPath(new URL("../../models", import.meta.url));
const KEY = "sk-demo-secret-7f3a9c";

function demo(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { ...process.env, CITEFLOW_MODELS: [MODELS, SHIPPED].join(delimiter), CITEFLOW_RUNS: "" };
  for (const k of ["CITEFLOW_DATA", "CITEFLOW_ALLOW_DOWNLOADS", "CITEFLOW_CHAT_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "CITEFLOW_NLI_MODEL"]) delete base[k];
  return new Promise((resolve) =>
    execFile(process.execPath, [bin, "demo", ...args], { env: { ...base, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * A SciFact release tarball in miniature: the first three training claims, the abstracts they
 * cite and 300 others, laid out as the release is (data/corpus.jsonl, data/claims_train.jsonl).
 */
function miniRelease(): { tarball: Buffer; claims: Array<{ claim: string }> } {
  const claimLines = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
    .trim()
    .split("\n")
    .slice(0, 3);
  const claims = claimLines.map((l) => JSON.parse(l) as { claim: string; cited_doc_ids: number[] });
  const cited = new Set(claims.flatMap((c) => c.cited_doc_ids));
  const corpus = readFileSync(join(DATA, "scifact", "corpus.jsonl"), "utf8")
    .trim()
    .split("\n");
  const keep = corpus.filter((l, i) => i < 300 || cited.has((JSON.parse(l) as { doc_id: number }).doc_id));
  const dir = tempDir();
  mkdirSync(join(dir, "data"));
  writeFileSync(join(dir, "data", "corpus.jsonl"), keep.join("\n") + "\n");
  writeFileSync(join(dir, "data", "claims_train.jsonl"), claimLines.join("\n") + "\n");
  execFileSync("tar", ["-czf", join(dir, "data.tar.gz"), "-C", dir, "data"]);
  return { tarball: readFileSync(join(dir, "data.tar.gz")), claims };
}

describe("npm run demo (citeflow demo)", () => {
  let release: ReturnType<typeof miniRelease>;
  let server: Loopback | undefined;
  beforeAll(() => {
    release = miniRelease();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("downloads SciFact when allowed, answers each claim with an OpenAI-compatible server, and keeps the key out of everything it writes", async () => {
    let chats = 0;
    server = await loopback((req, res) => {
      if (req.path === "/release/data.tar.gz") {
        res.writeHead(200, { "content-type": "application/gzip" });
        return void res.end(release.tarball);
      }
      if (req.path !== "/v1/chat/completions") return json(res, 404, { error: { message: `no route ${req.path}` } });
      // The server is busy once: the client backs off and retries.
      if (chats++ === 0) return json(res, 429, { error: { message: "rate limited", type: "requests" } }, { "retry-after-ms": "10" });
      json(res, 200, completion("The first paper bears on the claim [1]. The second one agrees [2]. An unseen source is cited [7]."));
    });
    const runs = tempDir();
    // A data folder without SciFact (as for Citeflow installed from a registry, which has no data/).
    const empty = tempDir();
    const env = {
      CITEFLOW_DATA: empty,
      CITEFLOW_ALLOW_DOWNLOADS: "1",
      CITEFLOW_SCIFACT_URL: `${server.url}/release/data.tar.gz`,
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: KEY,
      CITEFLOW_CHAT_MODEL: "loopback-llm",
    };
    const r = await demo(["--runs", runs], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`no SciFact in ${join(empty, "scifact")} (the data folder from $CITEFLOW_DATA)`);
    expect(r.stdout).toContain(`downloading SciFact from ${server.url}/release/data.tar.gz`);
    expect(r.stdout).toContain(`SciFact saved in ${join(runs, "data", "scifact")}`);
    expect(r.stdout).toContain("answers from chat model loopback-llm");
    // Verification with Citeflow's own trained NLI model, named with its card.
    expect(r.stdout).toMatch(/NLI: citeflow\/nli-minilm-scifact \(trained by Citeflow; card: .*README\.md; claim verdicts calibrated: Citeflow's NLI model, calibrated on the SciFact dev split \(/);
    // One block per claim: the question, the server's answer, its scores, verdicts and passages.
    for (const c of release.claims) expect(r.stdout).toContain(`━━ Question: ${c.claim}`);
    expect(r.stdout.match(/The first paper bears on the claim \[1\]/g)).toHaveLength(3);
    expect(r.stdout.match(/hallucinated citations: 1 \(\[7\]\)/g)).toHaveLength(3);
    expect(r.stdout.match(/citation precision \d\.\d{3} · recall \d\.\d{3} · F1 \d\.\d{3}/g)).toHaveLength(3);
    expect(r.stdout.match(/→ invalid:7: NO_REFERENCE/g)).toHaveLength(3);
    expect(r.stdout.match(/^stored: run \S+ in /gm)).toHaveLength(3);
    expect(r.stdout).toContain("cached nodes per run: 8/8, 8/8, 8/8");
    // SciFact's own answer for the passages each run read, beside the model's: claims 0 and 4 have no
    // evidence in the corpus, so theirs is the refusal; claim 2's quotes its evidence paper, cited.
    const shown = r.stdout.split("━━ Question: ").slice(1);
    expect(shown).toHaveLength(3);
    for (const [i, run] of shown.entries()) expect(run).toMatch(i === 1 ? /SciFact's answer for these passages \(.*\):\n {2}The papers report: .+ \[\d\]\.\n/ : `trained to write):\n  ${NO_ANSWER}\n`);
    // Three answers (the repeat comes from the cache) plus the one 429.
    expect(chats).toBe(4);
    expect(server.requests.filter((q) => q.path === "/v1/chat/completions").every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    for (const f of filesUnder(runs)) expect(readFileSync(f).includes(KEY), f).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(KEY);

    // A second demo reuses the download and the store.
    const again = await demo(["--runs", runs], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain("downloading SciFact");
    expect(server.requests.filter((q) => q.path === "/release/data.tar.gz")).toHaveLength(1);
  }, 240_000);

  it("labels it cannot read do not stop it: it answers, and says why SciFact's answer is not shown", async () => {
    server = await loopback((req, res) => json(res, 200, completion("The first paper bears on the claim [1].")));
    const claim = JSON.parse(readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8").split("\n")[0]!) as object;
    const data = tempDir();
    mkdirSync(join(data, "scifact"));
    const corpus = readFileSync(join(DATA, "scifact", "corpus.jsonl"), "utf8")
      .trim()
      .split("\n")
      .slice(0, 300);
    writeFileSync(join(data, "scifact", "corpus.jsonl"), corpus.join("\n") + "\n");
    writeFileSync(join(data, "scifact", "claims_train.jsonl"), JSON.stringify({ ...claim, evidence: { "4983": "not a list" } }) + "\n");
    const r = await demo(["--runs", tempDir(), "--data", data], { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: KEY, CITEFLOW_CHAT_MODEL: "loopback-llm" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("The first paper bears on the claim [1].");
    expect(r.stdout).toContain(`SciFact's answer: not shown (${join(data, "scifact", "claims_train.jsonl")}:1: evidence for 4983 is not a list)`);
  }, 120_000);

  it("without data and with downloads off it says where it looked and how to fix it; a broken download names the URL", async () => {
    const runs = tempDir();
    const empty = tempDir();
    const off = await demo(["--runs", runs], { CITEFLOW_DATA: empty });
    expect(off.code).not.toBe(0);
    expect(off.stderr).toContain(`${join(empty, "scifact", "corpus.jsonl")} and ${join(empty, "scifact", "claims_train.jsonl")} (no such file; the data folder from $CITEFLOW_DATA)`);
    expect(off.stderr).toContain(join(runs, "data", "scifact"));
    expect(off.stderr).toContain("CITEFLOW_ALLOW_DOWNLOADS=1");

    server = await loopback((req, res) => (req.path === "/gone.tar.gz" ? json(res, 404, { message: "Not Found" }) : res.end("this is not a tarball")));
    const gone = await demo(["--runs", runs], { CITEFLOW_DATA: empty, CITEFLOW_ALLOW_DOWNLOADS: "1", CITEFLOW_SCIFACT_URL: `${server.url}/gone.tar.gz` });
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain(`downloading SciFact from ${server.url}/gone.tar.gz failed: HTTP 404`);
    const junk = await demo(["--runs", runs], { CITEFLOW_DATA: empty, CITEFLOW_ALLOW_DOWNLOADS: "1", CITEFLOW_SCIFACT_URL: `${server.url}/junk.tar.gz` });
    expect(junk.code).not.toBe(0);
    expect(junk.stderr).toContain(`the SciFact download from ${server.url}/junk.tar.gz is not a readable .tar.gz`);
    // Nothing half-downloaded is left to be mistaken for data.
    expect(readdirSync(join(runs, "data"))).toEqual([]);

    const missing = await demo(["--runs", runs, "--data", runs], {});
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`${join(runs, "scifact", "corpus.jsonl")} and ${join(runs, "scifact", "claims_train.jsonl")} (no such file; the data folder from --data)`);
  }, 60_000);
});
