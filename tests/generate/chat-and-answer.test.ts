import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { extractiveAnswer, openAIChat } from "@citeflow/models";
import { RunStore } from "@citeflow/runstore";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { doc, eventsOf, run, tempDir } from "../helpers.js";

const KEY = "sk-chat-secret-0123456789abcdef";
let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const passages = [
  { id: "1#0", title: "Aspirin trial", text: "Aspirin lowered the rate of stroke in older adults. The trial ran for five years.", metadata: {}, scores: {} },
  { id: "2#0", title: "Coffee", text: "Coffee intake was not associated with heart disease.", metadata: {}, scores: {} },
  { id: "3#0", title: "Stroke risk", text: "Daily aspirin reduced stroke risk by a fifth. Bleeding rose slightly.", metadata: {}, scores: {} },
];

describe("extractive generator (offline baseline)", () => {
  it("picks the sentences that answer the question and cites them like an LLM would", () => {
    const text = extractiveAnswer("Does aspirin reduce stroke risk?", passages);
    expect(text).toBe("Daily aspirin reduced stroke risk by a fifth [3]. Aspirin lowered the rate of stroke in older adults [1].");
    expect(extractiveAnswer("Does aspirin reduce stroke risk?", passages)).toBe(text);
    expect(extractiveAnswer("Does aspirin reduce stroke risk?", passages, { base: 0, sentences: 1 })).toBe("Daily aspirin reduced stroke risk by a fifth [2].");
    expect(extractiveAnswer("quantum chromodynamics", passages)).toBe("The given passages do not answer this question.");
  });
});

describe("OpenAI-compatible chat model against a loopback server", () => {
  it("sends the messages and options, returns text, model and usage", async () => {
    server = await loopback((_req, res) => json(res, 200, completion("Yes [1].")));
    const m = openAIChat({ model: "m1", baseURL: `${server.url}/v1`, apiKey: KEY });
    const r = await m.chat([{ role: "user", content: "hi" }], { temperature: 0, maxTokens: 10, seed: 7 });
    expect(r).toEqual({ text: "Yes [1].", model: "loopback-model", usage: { promptTokens: 120, completionTokens: 30, totalTokens: 150 }, finishReason: "stop" });
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect(server.requests[0]!.body).toMatchObject({ model: "m1", messages: [{ role: "user", content: "hi" }], temperature: 0, max_tokens: 10, seed: 7 });
    expect(m.baseURL).not.toContain(KEY);
  });

  it("retries 429 (Retry-After) and 500, then answers", async () => {
    server = await loopback((req, res) =>
      req.n === 0
        ? json(res, 429, { error: { message: "rate limited" } }, { "retry-after-ms": "5" })
        : req.n === 1
          ? json(res, 500, { error: { message: "oops" } }, { "retry-after-ms": "5" })
          : json(res, 200, completion("ok")),
    );
    expect((await openAIChat({ model: "m", baseURL: server.url, apiKey: KEY }).chat([{ role: "user", content: "x" }])).text).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("fails clearly on timeouts, malformed JSON and empty choices, never showing the key", async () => {
    server = await loopback((req, res) => (req.n === 0 ? json(res, 200, "{not json") : req.n === 1 ? json(res, 200, { ...completion(""), choices: [] }) : undefined));
    const m = openAIChat({ model: "m", baseURL: server.url, apiKey: KEY, maxRetries: 0, timeoutMs: 100 });
    const errors = [];
    for (let i = 0; i < 3; i++) errors.push(await m.chat([{ role: "user", content: "x" }]).catch((e: Error) => e.message));
    expect(errors[0]).toMatch(/chat model m at .* failed/);
    expect(errors[1]).toMatch(/the response has no message content/);
    expect(errors[2]).toMatch(/timed out|timeout/i);
    for (const e of errors) expect(e).not.toContain(KEY);
  });
});

describe("generate.answer", () => {
  const graph = (params: Record<string, unknown>) =>
    doc({ q: ["input.question"], p: ["test.any", { value: passages }], g: ["generate.answer", params] }, ["q.question->g.question", "p.out->g.passages"], { question: { type: "Question" } });
  const question = { question: { id: "q1", text: "Does aspirin reduce stroke risk?" } };

  it("offline: the extractive baseline answers with valid citations", async () => {
    const r = await run(graph({ generator: "extractive" }), { inputs: question });
    const answer = r.byId.g!.outputs!.answer as { text: string; citations: Record<string, string>; invalidCitations: unknown[] };
    expect(answer.citations).toEqual({ "3": "3#0", "1": "1#0" });
    expect(answer.invalidCitations).toEqual([]);
    expect(eventsOf(r.events, "span-end")[0]!.data).toEqual({ model: "extractive-baseline" });
  });

  it("with an LLM: prompt with numbered passages, citations mapped, hallucinated ones flagged, the call traced without the key", async () => {
    server = await loopback((_req, res) => json(res, 200, completion("Aspirin lowers stroke risk [1][3], and cures everything [7].")));
    const saved = { u: process.env.OPENAI_BASE_URL, k: process.env.OPENAI_API_KEY };
    process.env.OPENAI_BASE_URL = server.url;
    process.env.OPENAI_API_KEY = KEY;
    try {
      const dir = tempDir();
      const store = new RunStore(dir);
      const r = await run(graph({ generator: "llm", model: "m" }), { ...store.runOptions(), inputs: question });
      const answer = r.byId.g!.outputs!.answer as { citations: Record<string, string>; invalidCitations: unknown[] };
      expect(answer.citations).toEqual({ "1": "1#0", "3": "3#0" });
      expect(answer.invalidCitations).toEqual([{ marker: "7", target: "7" }]);
      const prompt = server.requests[0]!.body.messages[1].content as string;
      expect(prompt).toContain("[1] Aspirin trial\nAspirin lowered");
      expect(prompt).toContain("[3] Stroke risk");
      expect(prompt).toContain("Question: Does aspirin reduce stroke risk?");
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      const span = store.readRun(r.result.runId).nodes.find((n) => n.id === "g")!.spans[0]!;
      expect(span.name).toBe("model");
      expect(span.data).toMatchObject({ model: "m", baseURL: server.url, usage: { totalTokens: 150 }, servedBy: "loopback-model" });
      const all: string[] = [];
      const walk = (p: string) => readdirSync(p, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(join(p, e.name)) : all.push(readFileSync(join(p, e.name), "utf8"))));
      walk(dir);
      expect(all.join("\n")).not.toContain(KEY);
    } finally {
      for (const [k, v] of [
        ["OPENAI_BASE_URL", saved.u],
        ["OPENAI_API_KEY", saved.k],
      ] as const)
        v === undefined ? delete process.env[k] : (process.env[k] = v);
    }
  });

  it("a graph naming a server the user did not configure is refused before any request; allowed, it gets no key", async () => {
    server = await loopback((_req, res) => json(res, 200, completion("Fine [1].")));
    const saved = { u: process.env.OPENAI_BASE_URL, k: process.env.OPENAI_API_KEY, a: process.env.CITEFLOW_ALLOWED_ENDPOINTS };
    process.env.OPENAI_API_KEY = KEY;
    delete process.env.OPENAI_BASE_URL;
    delete process.env.CITEFLOW_ALLOWED_ENDPOINTS;
    try {
      const refused = await run(graph({ generator: "llm", model: "m", baseUrl: `${server.url}/v1` }), { inputs: question });
      expect(refused.byId.g!.status).toBe("error");
      expect(refused.byId.g!.error!.message).toContain(`params.baseUrl names the server ${server.url}/v1, which you have not configured`);
      expect(server.requests).toHaveLength(0);
      process.env.CITEFLOW_ALLOWED_ENDPOINTS = server.url;
      const allowed = await run(graph({ generator: "llm", model: "m", baseUrl: `${server.url}/v1`, timeoutMs: 5000 }), { inputs: question });
      expect(allowed.byId.g!.status).toBe("done");
      expect(server.requests[0]!.headers.authorization).toBe("Bearer no-key");
    } finally {
      for (const [k, v] of [
        ["OPENAI_BASE_URL", saved.u],
        ["OPENAI_API_KEY", saved.k],
        ["CITEFLOW_ALLOWED_ENDPOINTS", saved.a],
      ] as const)
        v === undefined ? delete process.env[k] : (process.env[k] = v);
    }
  });

  it("auto: the chat model when one is configured in the environment, else extractive; switching re-runs the node", async () => {
    server = await loopback((_req, res) => json(res, 200, completion("From the LLM [2].")));
    const { MemoryCache } = await import("@citeflow/core");
    const cache = new MemoryCache();
    const saved = { m: process.env.CITEFLOW_CHAT_MODEL, u: process.env.OPENAI_BASE_URL };
    try {
      delete process.env.CITEFLOW_CHAT_MODEL;
      const offline = await run(graph({}), { cache, inputs: question });
      expect((offline.byId.g!.outputs!.answer as { text: string }).text).toMatch(/^Daily aspirin/);
      process.env.CITEFLOW_CHAT_MODEL = "m";
      process.env.OPENAI_BASE_URL = server.url;
      const online = await run(graph({}), { cache, inputs: question });
      expect(online.byId.g!.cache).toBe("miss");
      expect((online.byId.g!.outputs!.answer as { text: string }).text).toBe("From the LLM [2].");
    } finally {
      for (const [k, v] of [
        ["CITEFLOW_CHAT_MODEL", saved.m],
        ["OPENAI_BASE_URL", saved.u],
      ] as const)
        v === undefined ? delete process.env[k] : (process.env[k] = v);
    }
  });

  it("with an LLM but no model configured: says how to configure one", async () => {
    const saved = process.env.CITEFLOW_CHAT_MODEL;
    delete process.env.CITEFLOW_CHAT_MODEL;
    try {
      const r = await run(graph({ generator: "llm" }), { inputs: question });
      expect(r.byId.g!.error!.message).toMatch(/no chat model is configured \(\$CITEFLOW_CHAT_MODEL\) and no \.gguf file is in the models folders[\s\S]*npm run models/);
    } finally {
      if (saved !== undefined) process.env.CITEFLOW_CHAT_MODEL = saved;
    }
  });

  it("a server that keeps failing fails the node with the server named; a re-run after recovery reuses the rest", async () => {
    let healthy = false;
    server = await loopback((_req, res) => (healthy ? json(res, 200, completion("Fine [2].")) : json(res, 503, { error: { message: "down" } }, { "retry-after-ms": "1" })));
    const { MemoryCache } = await import("@citeflow/core");
    const cache = new MemoryCache();
    const g = graph({ generator: "llm", model: "m", retries: 1 });
    const saved = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = server.url;
    onTestFinished(() => void (saved === undefined ? delete process.env.OPENAI_BASE_URL : (process.env.OPENAI_BASE_URL = saved)));
    const failed = await run(g, { cache, inputs: question });
    expect(failed.byId.g!.status).toBe("error");
    expect(failed.byId.g!.error!.message).toMatch(new RegExp(`chat model m at ${server.url}.* failed: 503`));
    healthy = true;
    const again = await run(g, { cache, inputs: question });
    expect(again.byId.q!.cache).toBe("hit");
    expect(again.byId.g).toMatchObject({ status: "done", cache: "miss" });
  });
});
