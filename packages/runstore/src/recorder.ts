import { dirname } from "node:path";
import type { RunEvent } from "@citeflow/core";
import type { BlobStore } from "./blobs.js";
import { appendLines } from "./fsutil.js";
import type { Redactor } from "./redact.js";

/** Values larger than this (as JSON) go to a blob and the line holds `{ "$blob": hash }`. */
const INLINE_LIMIT = 2048;

/**
 * Writes a run as it happens: one JSON line per event, appended synchronously, so a process
 * killed at any point leaves every line before it intact. Output values go to blobs before
 * the line that names them.
 */
export class RunRecorder {
  constructor(
    readonly path: string,
    private readonly blobs: BlobStore,
    private readonly redactor: Redactor,
  ) {}

  record(event: RunEvent): void {
    // The run store folder: runs/<id>.jsonl below it is never written through a link.
    appendLines(this.path, this.redactor.redact(JSON.stringify(this.#line(event))) + "\n", dirname(dirname(this.path)));
  }

  #line(e: RunEvent): object {
    switch (e.type) {
      case "run-start": {
        const { inputs, ...rest } = e;
        const inputHashes = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, this.blobs.put(v)]));
        return { ...rest, inputHashes };
      }
      case "node-end": {
        const { outputs, ...rest } = e;
        for (const [port, value] of Object.entries(outputs)) this.blobs.put(value, e.outputHashes[port]);
        return rest;
      }
      case "span-end":
      case "node-log":
        return e.data === undefined ? e : { ...e, data: this.#maybeBlob(e.data) };
      default:
        return e;
    }
  }

  #maybeBlob(value: unknown): unknown {
    const text = JSON.stringify(value);
    return text.length > INLINE_LIMIT ? { $blob: this.blobs.put(value) } : value;
  }
}
