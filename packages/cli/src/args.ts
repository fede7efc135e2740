import { Option } from "commander";
import { defaultRunStore } from "@citeflow/runstore";
import { UsageError } from "./errors.js";

/** Option parsers and shared options of the CLI's commands. */

export function runsOption() {
  return new Option("--runs <dir>", "run store folder ($CITEFLOW_RUNS, else ./.citeflow)").default(defaultRunStore(process.env));
}

export function twoModels(v: string[]): string[] {
  if (v.length !== 2) throw new UsageError(`--compare takes two models, A and B; got ${v.length}`);
  return v;
}

export function intArg(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a whole number ≥ 1, got "${v}"`);
    return n;
  };
}

export function numberArg(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n)) throw new UsageError(`${name} must be a number, got "${v}"`);
    return n;
  };
}
