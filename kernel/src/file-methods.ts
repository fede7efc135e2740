import type { MethodResult } from "@citeflow/core";
import type { ExportResult, Format } from "@citeflow/datasets";
import type { ServicesConfig } from "@citeflow/nodes";
import { resolve } from "node:path";
import { need, type Methods } from "./requests.js";
import type { StoreThread } from "./store-jobs.js";

type FileMethod = "runs" | "record" | "output" | "correct" | "diff" | "export" | "evidencePage";

/**
 * The comm's file work, all of it on the kernel's file thread (store-thread.ts) so that the kernel
 * keeps answering while it reads and writes: the run store's runs, records, outputs, corrections and
 * diffs, exports, and PDF pages rendered with a verdict's evidence marked.
 */
export function fileMethods(files: StoreThread, storeDir: string, config: () => ServicesConfig): Methods<FileMethod> {
  return {
    runs: async (req) => (await files.run<MethodResult<"runs">>({ kind: "runs", runs: storeDir })).filter((r) => req.graphName === undefined || r.graph === req.graphName),
    record: (req) => files.run({ kind: "record", runs: storeDir, runId: need<string>(req, "runId", "string") }),
    output: (req) =>
      files.run({
        kind: "output",
        runs: storeDir,
        runId: need<string>(req, "runId", "string"),
        nodeId: need<string>(req, "nodeId", "string"),
        port: typeof req.port === "string" ? req.port : undefined,
      }),
    correct: (req) => files.run({ kind: "correct", runs: storeDir, runId: need<string>(req, "runId", "string"), correction: need(req, "correction", "object") }),
    diff: (req) => files.run({ kind: "diff", runs: storeDir, a: need<string>(req, "a", "string"), b: need<string>(req, "b", "string") }),
    // A PDF passage's page with a span of its text marked (a verdict's evidence), as base64 PNG.
    evidencePage: (req) => {
      const sha256 = typeof req.sha256 === "string" ? req.sha256 : undefined;
      return files.run({
        kind: "evidencePage",
        request: { path: need<string>(req, "path", "string"), start: need<number>(req, "start", "number"), end: need<number>(req, "end", "number"), ...(sha256 ? { sha256 } : {}) },
      });
    },
    export: async (req) => {
      const format = need<string>(req, "format", "string") as Format;
      const out = resolve(need<string>(req, "out", "string"));
      const opts = Object.fromEntries(["split", "seed", "metadata", "runIds", "parquet"].filter((k) => req[k] !== undefined).map((k) => [k, req[k]]));
      const result = await files.run<ExportResult>({
        kind: "export",
        options: { runs: storeDir, config: config(), format, out, ...opts, command: `citeflow export --runs ${storeDir} --format ${format} --out ${out}` },
      });
      return { out, ...result };
    },
  };
}
