import type { Method, MethodResult } from "@citeflow/core";

/** A comm request as it came: every field is input, checked where it is read. */
export type Request = { id?: string | number; method?: string } & Record<string, unknown>;

/** Methods of the comm protocol, each answering with its result (or a promise of it). */
export type Methods<M extends Method> = { [K in M]: (req: Request) => MethodResult<K> | Promise<MethodResult<K>> };

/** A request the kernel refuses as sent: the editor shows its message. */
export class RequestError extends Error {
  override name = "RequestError";
}

/** A request's field, of the kind the method needs, or a RequestError naming both. */
export function need<T>(req: Request, key: string, kind: "string" | "number" | "object"): T {
  const v = req[key];
  if (kind === "object" ? typeof v !== "object" || v === null : typeof v !== kind) throw new RequestError(`"${req.method}" needs "${key}" (${kind})`);
  return v as T;
}

/** The request's fields among `keys` that it sets. */
export function pick(req: Request, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => req[k] !== undefined).map((k) => [k, req[k]]));
}
