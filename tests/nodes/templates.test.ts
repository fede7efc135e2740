import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type Answer, type Query, type Verdict } from "@citeflow/core";
import { templateNames, templatePath } from "@citeflow/nodes";
import { completion, json } from "../models/loopback.js";
import { run } from "../helpers.js";
import { templateSuite } from "../scifact.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

const suite = templateSuite(80);
const template = (name: string) => JSON.parse(readFileSync(templatePath(name), "utf8"));

describe("template graphs", () => {
  it("ships CORE-GPT and Verif.ai", () => {
    expect(templateNames()).toEqual(expect.arrayContaining(["core-gpt", "verifai"]));
  });

  it("Verif.ai runs offline end to end: retrieval, extractive answer, claims, NLI verdicts", async () => {
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_NLI_MODEL = "pair-nli-scifact";
    delete process.env.CITEFLOW_CHAT_MODEL;
    const r = await run(template("verifai"), { inputs: { question: { id: "q", text: suite.docs[5]!.title } } });
    expect(r.result.status, JSON.stringify(r.result.nodes.find((n) => n.error)?.error)).toBe("ok");
    const answer = r.byId.answer!.outputs!.answer as Answer;
    expect(Object.keys(answer.citations).length).toBeGreaterThan(0);
    expect(answer.invalidCitations).toEqual([]);
    const metrics = r.byId.citations!.outputs!.metrics as { precision: number; recall: number; f1: number; hallucinatedCitations: number };
    expect(metrics.hallucinatedCitations).toBe(0);
    const { precision: p, recall: rc } = metrics;
    expect(metrics.f1).toBeCloseTo(p + rc > 0 ? (2 * p * rc) / (p + rc) : 0, 10);
    const verdicts = r.byId.verify!.outputs!.verdicts as Verdict[];
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts.every((v) => ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"].includes(v.label))).toBe(true);
  });

  it("CORE-GPT with an LLM: enriched query drives retrieval, the answer cites the five papers", async () => {
    const server = await suite.serve((req, res) => {
      const user = req.body.messages.at(-1).content as string;
      json(res, 200, completion(user.includes("search query") ? `"${suite.docs[9]!.title}"` : "The papers agree [1], mostly [2][6]."));
    });
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "loopback-model";
    process.env.OPENAI_BASE_URL = server.url;
    const r = await run(template("core-gpt"), { inputs: { question: { id: "q", text: "some question" } } });
    expect(r.result.status).toBe("ok");
    const query = r.byId.enrich!.outputs!.query as Query;
    expect(query).toEqual({ text: suite.docs[9]!.title, questionId: "q", origin: "enriched" });
    const top = r.byId.top5!.outputs!.items as Array<{ id: string }>;
    expect(top).toHaveLength(5);
    expect(top[0]!.id.split("#")[0]).toBe(suite.docs[9]!.docId);
    const answer = r.byId.answer!.outputs!.answer as Answer;
    expect(answer.citations).toEqual({ "1": top[0]!.id, "2": top[1]!.id });
    expect(answer.invalidCitations).toEqual([{ marker: "6", target: "6" }]);
    expect(server.requests).toHaveLength(2);
  });

  it("Verif.ai with an LLM: the answer comes from the server, its claims are verified, hallucinated citations counted", async () => {
    const server = await suite.serve((_req, res) => json(res, 200, completion("The first paper reports it [1]. Another says so too [2]. A made-up source agrees [9].")));
    process.env.CITEFLOW_STORE = suite.store;
    process.env.CITEFLOW_CHAT_MODEL = "m";
    process.env.OPENAI_BASE_URL = server.url;
    const r = await run(template("verifai"), { inputs: { question: { id: "q", text: suite.docs[6]!.title } } });
    expect(r.result.status).toBe("ok");
    const answer = r.byId.answer!.outputs!.answer as Answer;
    expect(Object.keys(answer.citations)).toEqual(["1", "2"]);
    expect(answer.invalidCitations).toEqual([{ marker: "9", target: "9" }]);
    const verdicts = r.byId.verify!.outputs!.verdicts as Verdict[];
    expect(verdicts.map((v) => v.passageId)).toEqual([answer.citations["1"], answer.citations["2"], "invalid:9"]);
    expect(verdicts[2]!.label).toBe("NO_REFERENCE");
    expect((r.byId.citations!.outputs!.metrics as { hallucinatedCitations: number }).hallucinatedCitations).toBe(1);
  });

  it("CORE-GPT offline: the question is the query, and the trace says why", async () => {
    process.env.CITEFLOW_STORE = suite.store;
    delete process.env.CITEFLOW_CHAT_MODEL;
    const r = await run(template("core-gpt"), { inputs: { question: { id: "q", text: suite.docs[2]!.title } } });
    expect(r.result.status).toBe("ok");
    expect(r.byId.enrich!.outputs!.query).toMatchObject({ text: suite.docs[2]!.title, origin: "question" });
    expect(r.events.some((e) => e.type === "node-log" && e.nodeId === "enrich" && /no LLM configured/.test(e.message))).toBe(true);
  });

  it("citeflow templates lists them; citeflow run takes a template name and --store", async () => {
    const exec = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [bin, ...args],
          { env: { ...process.env, CITEFLOW_RUNS: mkdtempSync(join(tmpdir(), "citeflow-runs-")), CITEFLOW_CHAT_MODEL: "", CITEFLOW_NLI_MODEL: "pair-nli-scifact" } },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const list = JSON.parse((await exec(["templates", "--json"])).stdout);
    expect(list.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["core-gpt", "verifai"]));
    const r = await exec(["run", "core-gpt", "--question", suite.docs[1]!.title, "--store", suite.store, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.nodes.map((n: { id: string }) => n.id)).toEqual(["question", "enrich", "retrieve", "papers", "top5", "answer", "citations"]);
    expect(Object.keys(summary.citations).sort()).toEqual(["f1", "precision", "recall"]);
    expect(summary.hallucinatedCitations).toBe(0);
    const v = await exec(["run", "verifai", "--question", suite.docs[1]!.title, "--store", suite.store, "--json"]);
    expect(v.code, v.stderr).toBe(0);
    expect(Object.keys(JSON.parse(v.stdout).citations).sort()).toEqual(["f1", "precision", "recall"]);
  });
});
