/** A model's load is a phase of the node that first uses it: its progress says so, and a "load" span records how long it took. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelCalls, type RunEvent } from "@citeflow/core";
import type { ChatModel } from "@citeflow/models";
import { configFromEnv, createServices, waitingFor } from "@citeflow/nodes";
import { doc, eventsOf, run, tempDir } from "../helpers.js";

const answering: ChatModel = {
  id: "gemma-test",
  baseURL: "in-process",
  constrains: false,
  chat: async () => ({ text: "aspirin stroke prevention", model: "gemma-test", usage: { promptTokens: 12, completionTokens: 3 } }),
};

/** Services whose chat model is an in-process file that takes `ms` to load the first time, and none after. */
function slowToLoad(ms: number) {
  const services = createServices(configFromEnv(process.env));
  let loaded: Promise<ChatModel> | undefined;
  // Its file is only read for the cache key (name and size).
  const path = join(tempDir(), "gemma-test.gguf");
  writeFileSync(path, "GGUF");
  return Object.assign(services, {
    chatChoice: () => ({ kind: "local" as const, path }),
    chat: () => (loaded ??= new Promise<ChatModel>((r) => setTimeout(() => r(answering), ms))),
  });
}

const graph = doc({ q: ["input.question"], e: ["query.enrich"] }, ["q.question->e.question"], { question: { type: "Question" } });
const inputs = { question: { id: "q1", text: "Does aspirin prevent stroke?" } };
/** Each span the node "e" ended, with its name (from its start) and data. */
const spansOf = (events: RunEvent[]) => {
  const names = new Map(eventsOf(events, "span-start").map((e) => [e.spanId, e.name]));
  return eventsOf(events, "span-end")
    .filter((e) => e.nodeId === "e")
    .map((e) => ({ name: names.get(e.spanId)!, data: e.data, children: [] }));
};

describe("loading a model", () => {
  it("the first use says it is loading and records the load as a span with its time; later uses do neither", async () => {
    const services = slowToLoad(300);
    const first = await run(graph, { services, inputs });
    expect(first.byId.e!.status, JSON.stringify(first.byId.e!.error)).toBe("done");
    const said = eventsOf(first.events, "node-progress").filter((e) => e.nodeId === "e");
    expect(said.map((e) => e.message)).toContain("loading gemma-test.gguf (its first use this session)");
    expect(said.map((e) => e.message).find((m) => m?.startsWith("gemma-test.gguf loaded in "))).toMatch(/ s$/);
    const load = spansOf(first.events).find((s) => s.name === "load");
    expect(load?.data).toMatchObject({ model: "gemma-test.gguf", where: "in-process" });
    expect(load?.data).not.toHaveProperty("baseURL"); // not a call: what reads calls (exports, token counts) leaves it alone
    expect((load!.data as { loadMs: number }).loadMs).toBeGreaterThan(0);
    const calls = modelCalls(spansOf(first.events));
    expect(calls.find((c) => c.span === "load")).toMatchObject({ model: "gemma-test.gguf", where: "in-process" });

    const second = await run(graph, { services, inputs: { question: { id: "q2", text: "Does coffee raise blood pressure?" } } });
    expect(eventsOf(second.events, "node-progress").some((e) => e.message?.startsWith("loading"))).toBe(false);
    expect(spansOf(second.events).some((s) => s.name === "load")).toBe(false);
  });
});

describe("waiting for the first token", () => {
  it("says what it waits for: an in-process model reading the prompt (its size), a server by its address", async () => {
    const messages = [{ role: "user" as const, content: "x".repeat(12_345) }];
    expect(waitingFor({ baseURL: "in-process" }, messages)).toBe("reading the prompt (12,345 characters) before the first token");
    expect(waitingFor({ baseURL: "http://127.0.0.1:9/v1" }, messages)).toBe("waiting for the first token from http://127.0.0.1:9/v1");
    // A node's run says it before the first piece of text.
    const said = eventsOf((await run(graph, { services: slowToLoad(1), inputs })).events, "node-progress").filter((e) => e.nodeId === "e");
    const reading = said.findIndex((e) => e.message?.startsWith("reading the prompt ("));
    expect(reading).toBeGreaterThanOrEqual(0);
    expect(said.slice(0, reading).every((e) => /^loading |loaded in [\d.]+ s$/.test(e.message ?? ""))).toBe(true);
  });
});
