import { COMM_VERSION, errorInfo, type Method } from "@citeflow/core";
import { FORMATS } from "@citeflow/datasets";
import { processHost } from "@citeflow/host";
import { modelCard } from "@citeflow/models";
import { catalogueWithModels, templateNames } from "@citeflow/nodes";
import { defaultRunStore, RunStore } from "@citeflow/runstore";
import type { Comm, CommHandler } from "./comm.js";
import { fileMethods } from "./file-methods.js";
import { RequestError, need, type Methods, type Request } from "./requests.js";
import { runMethods } from "./run-methods.js";
import { StoreThread } from "./store-jobs.js";

/** The methods that only steer a run in progress. */
const STEERING = new Set(["abort", "abortSet", "pause", "step", "continue", "breakpoints"]);

/**
 * The `citeflow` comm: what the pipeline editor uses to drive the kernel. Each request carries an
 * `id` and a `method`; each gets one `{type:"reply", id, ok, result | error}`; runs stream
 * `{type:"event", runId, event}` messages. See kernel/README.md for every method. The methods are
 * grouped by concern: runs and question sets (run-methods.ts), file work on the kernel's file thread
 * (file-methods.ts), and what the kernel has (below).
 */
export function citeflowTarget(comm: Comm, openData: unknown): CommHandler {
  const runsDir = (openData as { runs?: unknown } | undefined)?.runs;
  // Opened once: runs record into it; the file thread opens its own for the file work.
  const store = new RunStore(typeof runsDir === "string" ? runsDir : defaultRunStore(process.env));
  const files = new StoreThread();
  // The process's host: the notebook cells this kernel runs configure it too.
  const host = processHost(process.env);
  const runs = runMethods(host, store, (message) => comm.send(message));
  // Typed by the protocol's results; every parameter is still checked where it is read, since a message is input.
  const methods: Methods<Method> = {
    hello: () => ({ version: COMM_VERSION, runStore: store.dir, templates: templateNames(), exportFormats: FORMATS }),
    // Model params offer the installed models of their kind (catalogueWithModels).
    catalogue: () => catalogueWithModels(host.registry, host.services.config.modelsDirs),
    modelCard: (req) => modelCard(need<string>(req, "model", "string"), host.services.config.modelsDirs) ?? null,
    ...runs.methods,
    ...fileMethods(files, store.dir, () => host.services.config),
  };

  return {
    // Steering a run already under way needs nothing a busy cell holds: the editor's Stop works while a cell runs.
    urgent: (data) => STEERING.has(String((data as Request | null)?.method)),
    onMessage(data) {
      const req = (data ?? {}) as Request;
      const id = req.id ?? null;
      const fail = (e: unknown) => {
        const { name, message } = errorInfo(e);
        comm.send({ type: "reply", id, ok: false, error: { name, message } });
      };
      try {
        const method = typeof req.method === "string" && Object.hasOwn(methods, req.method) ? (methods[req.method as Method] as (req: Request) => unknown) : undefined;
        if (!method) throw new RequestError(`unknown method ${JSON.stringify(req.method)} (methods: ${Object.keys(methods).join(", ")})`);
        const result = method(req);
        // Most methods answer at once; the few that read files answer when they are done.
        if (result instanceof Promise) result.then((r) => comm.send({ type: "reply", id, ok: true, result: r ?? null }), fail);
        else comm.send({ type: "reply", id, ok: true, result: result ?? null });
      } catch (e) {
        fail(e);
      }
    },
    onClose() {
      runs.close();
      void files.close();
    },
  };
}
