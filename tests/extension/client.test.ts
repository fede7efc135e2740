/**
 * The editor's comm client against a kernel that answers like the Citeflow kernel (its comm target,
 * `{type: "reply", id, ok, result | error}`), in process: the version check on open and the kernel's
 * error names. The real kernel and JupyterLab are driven by the lab suites.
 */
import { COMM_TARGET, COMM_VERSION } from "@citeflow/core/browser";
import { describe, expect, it } from "vitest";
import { CiteflowClient, CommError } from "../../extension/lib/client.js";

type Data = Record<string, unknown>;

/** A session whose kernel opens one comm per createComm and answers each message with `answer`. */
function kernel(answer: (msg: Data) => Data) {
  const sent: Data[] = [];
  const opened: string[] = [];
  let closed = 0;
  const session = {
    ready: Promise.resolve(),
    kernelChanged: { connect() {} },
    session: {
      kernel: {
        createComm(target: string) {
          opened.push(target);
          const comm = {
            isDisposed: false,
            onMsg: (_: { content: { data: Data } }) => {},
            onClose: () => {},
            open: () => ({ done: Promise.resolve() }),
            send(msg: Data) {
              sent.push(msg);
              queueMicrotask(() => comm.onMsg({ content: { data: { type: "reply", id: msg.id, ...answer(msg) } } }));
            },
            close() {
              closed++;
              comm.onClose();
            },
          };
          return comm;
        },
      },
    },
  };
  return { client: new CiteflowClient(session as never), sent, opened, closed: () => closed };
}

const hello = (version: number) => ({ ok: true, result: { version, runStore: ".citeflow", templates: [], exportFormats: ["nli"] } });

describe("the editor's comm client", () => {
  it("says hello first, then sends requests to the kernel's target", async () => {
    const k = kernel((m) => (m.method === "hello" ? hello(COMM_VERSION) : { ok: true, result: ["verifai"] }));
    await expect(k.client.request("runs", {})).resolves.toEqual(["verifai"]);
    expect(k.opened).toEqual([COMM_TARGET]);
    expect(k.sent.map((m) => m.method)).toEqual(["hello", "runs"]);
  });

  it("refuses a kernel that speaks another version, before any request reaches it", async () => {
    const k = kernel(() => hello(COMM_VERSION + 1));
    await expect(k.client.request("runs", {})).rejects.toThrow(`the kernel speaks version ${COMM_VERSION + 1} of the citeflow protocol, this editor version ${COMM_VERSION}`);
    expect(k.sent.map((m) => m.method)).toEqual(["hello"]);
    expect(k.closed()).toBe(1);
    // The next request tries again (the user may have restarted the kernel): hello again, refused again.
    await expect(k.client.request("runs", {})).rejects.toThrow(/version/);
    expect(k.sent.map((m) => m.method)).toEqual(["hello", "hello"]);
  });

  it("keeps the name of the kernel's error", async () => {
    const k = kernel((m) => (m.method === "hello" ? hello(COMM_VERSION) : { ok: false, error: { name: "RequestError", message: 'no run "r1" in progress' } }));
    const err = await k.client.request("abort", { runId: "r1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommError);
    expect(err).toMatchObject({ name: "RequestError", message: 'abort: no run "r1" in progress' });
  });
});
