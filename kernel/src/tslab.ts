/**
 * The one place the kernel reaches into tslab. tslab publishes only `display` and `versions`
 * (`tslab`'s main, dist/public.js); its executor (cells on one TypeScript program: declarations
 * persist, top-level await), its converter and its quick-info printer live in its dist files, which
 * are used here as libraries (tslab's own kernel is not). They are not a public API, so tslab is
 * pinned exactly (kernel/package.json) and `TSLAB_VERSION` names the version these paths and types
 * are from: tests/kernel/tslab.test.ts fails when the installed tslab is another, or lacks one of them.
 * An upgrade changes this file and the pin together.
 */
import { createRequire } from "node:module";

export const TSLAB_VERSION = "1.0.22";

const require = createRequire(import.meta.url);
// tslab is CommonJS; its own .d.ts files type what is taken.
export const { createConverter, isCompleteCode } = require("tslab/dist/converter.js") as typeof import("tslab/dist/converter.js");
export const { createExecutor } = require("tslab/dist/executor.js") as typeof import("tslab/dist/executor.js");
export const { printQuickInfo } = require("tslab/dist/inspect.js") as { printQuickInfo(info: unknown): string };
