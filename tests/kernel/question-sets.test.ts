/**
 * The editor's question sets over the kernel's comm (`runSet`, `abortSet`): one recorded run a
 * question, `parallel` at once against a served model (a loopback OpenAI-compatible server), the
 * set's progress as `set` messages, every run's events streamed, and Stop ending the set.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { SetProgressView } from "@citeflow/core";
import { RunStore } from "@citeflow/runstore";
import { configure } from "citeflow";
import { citeflowTarget } from "../../kernel/dist/citeflow-comm.js";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { tempDir } from "../helpers.js";

const doc = {
  citeflow: 1,
  name: "enrich-set",
  inputs: { question: { type: "Question" } },
  nodes: [
    { id: "q", type: "input.question", version: 1, params: {} },
    { id: "enrich", type: "query.enrich", version: 1, params: { retries: 0 } },
  ],
  edges: [{ from: "q.question", to: "enrich.question" }],
};
const QUESTIONS = ["Does aspirin lower stroke risk?", "Does statin use lower LDL?", "Does exercise lower blood pressure?"];

type Message = { type: string; id?: number; ok?: boolean; result?: any; error?: { message: string }; progress?: SetProgressView; runId?: string; event?: { type: string } };

/** A served model that answers each call after `ms`, counting the calls it holds at once. */
async function served(ms: number) {
  let now = 0;
  const seen = { most: 0 };
  const server = await loopback(async (req, res) => {
    seen.most = Math.max(seen.most, ++now);
    await new Promise((r) => setTimeout(r, ms));
    now--;
    json(res, 200, completion(`query for ${JSON.stringify(req.body.messages.at(-1).content.slice(-40))}`));
  });
  return { server, seen };
}

describe("question sets in the editor (the kernel's runSet)", () => {
  let server: Loopback | undefined;
  const handlers: Array<{ onClose(): void }> = [];
  afterEach(async () => {
    for (const h of handlers.splice(0)) h.onClose();
    await server?.close();
  });
  afterAll(() => void configure({ chat: { model: "", baseUrl: "" } }));

  const open = (runs: string) => {
    const sent: Message[] = [];
    const handler = citeflowTarget({ id: "c", target: "citeflow", send: (d) => void sent.push(d as Message), close: () => undefined }, { runs });
    handlers.push(handler);
    return { sent, handler, sets: () => sent.filter((m) => m.type === "set").map((m) => m.progress!) };
  };

  it("runs each question as its own recorded run, two at once, in the questions' order, with the set's progress", async () => {
    const s = await served(150);
    server = s.server;
    configure({ chat: { model: "m", baseUrl: `${server.url}/v1`, apiKey: "" } });
    const runs = tempDir();
    const { sent, handler, sets } = open(runs);
    handler.onMessage({ id: 1, method: "runSet", graph: doc, questions: QUESTIONS, parallel: 2 });
    // The reply may come after the set's first progress message (its first run starts at once).
    const reply = sent.find((m) => m.type === "reply" && m.id === 1);
    expect(reply).toMatchObject({ ok: true, result: { total: 3, parallel: 2 } });
    const setId = reply!.result.setId as string;
    await expect.poll(() => sets().at(-1)?.status, { timeout: 20_000 }).toBe("ok");
    const last = sets().at(-1)!;
    expect(last).toMatchObject({ setId, total: 3, done: 3, inFlight: 0, failed: 0 });
    expect(last.text).toMatch(/^questions 3\/3 · 0 in flight · 0 failed/);
    // Two calls at once at most, and more than one: the set kept the server busy as asked.
    expect(s.seen.most).toBe(2);
    // Each question's run, in the questions' order, recorded with its question; every run's events were streamed.
    const store = new RunStore(runs);
    expect(last.runIds.map((id) => store.runInput(id!, "question"))).toEqual(QUESTIONS.map((text) => expect.objectContaining({ text })));
    for (const id of last.runIds) expect(sent.some((m) => m.type === "event" && m.runId === id && m.event?.type === "run-end")).toBe(true);
    // Progress went out as runs started and ended: in flight never above 2.
    expect(Math.max(...sets().map((p) => p.inFlight))).toBe(2);
  }, 30_000);

  it("Stop (abortSet) starts no further run and aborts the one in flight; the set says it was aborted", async () => {
    const s = await served(1_500);
    server = s.server;
    configure({ chat: { model: "m", baseUrl: `${server.url}/v1`, apiKey: "" } });
    const runs = tempDir();
    const { sent, handler, sets } = open(runs);
    handler.onMessage({ id: 1, method: "runSet", graph: doc, questions: QUESTIONS, parallel: 1 });
    const setId = sent.find((m) => m.id === 1)!.result.setId as string;
    await expect.poll(() => server!.requests.length, { timeout: 10_000 }).toBe(1);
    handler.onMessage({ id: 2, method: "abortSet", setId });
    expect(sent.find((m) => m.id === 2)).toMatchObject({ type: "reply", ok: true });
    await expect.poll(() => sets().at(-1)?.status, { timeout: 10_000 }).toBe("aborted");
    const last = sets().at(-1)!;
    expect(last.runIds.slice(1)).toEqual([null, null]);
    expect(server.requests).toHaveLength(1);
    expect(new RunStore(runs).readRun(last.runIds[0]!).status).toBe("aborted");
    // The set is over: stopping it again is refused by name.
    handler.onMessage({ id: 3, method: "abortSet", setId });
    expect(sent.find((m) => m.id === 3)).toMatchObject({ ok: false, error: { message: `no question set "${setId}" in progress` } });
  }, 30_000);

  it("refuses a set without questions, an empty question and a parallel that is not a whole number above 0, by name", () => {
    const { sent, handler } = open(tempDir());
    handler.onMessage({ id: 1, method: "runSet", graph: doc, questions: [] });
    handler.onMessage({ id: 2, method: "runSet", graph: doc, questions: ["ok", " "] });
    handler.onMessage({ id: 3, method: "runSet", graph: doc, questions: ["ok"], parallel: 0 });
    handler.onMessage({ id: 4, method: "runSet", graph: doc });
    expect(sent.map((m) => [m.id, m.ok, m.error?.message])).toEqual([
      [1, false, '"runSet" needs "questions": a list of one or more questions, none empty'],
      [2, false, '"runSet" needs "questions": a list of one or more questions, none empty'],
      [3, false, '"parallel" must be a whole number of 1 or more, got 0'],
      [4, false, '"runSet" needs "questions" (object)'],
    ]);
  });
});
