/** Exit codes: 0 ok, 1 run or validation failure, 2 usage error. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** The user asked for something the command cannot do as asked. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command ran and something failed (invalid graph, failed node, bad input file). */
export class FailureError extends Error {
  override name = "FailureError";
}
