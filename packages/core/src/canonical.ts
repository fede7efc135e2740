/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, non-finite numbers refused.
 * Two values that mean the same thing serialise to the same string, so their hash is the same.
 * Browser-safe (no Node imports).
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value);
  } catch (e) {
    // Refused: walk it again, naming where (the paths are built only then, not for every value hashed).
    if (e instanceof TypeError) throw new TypeError(problem(value, "$") ?? e.message, { cause: e });
    throw e;
  }
}

function write(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(String(value));
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return "[" + value.map((v) => (v === undefined ? "null" : write(v))).join(",") + "]";
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      return "{" + keys.map((k) => JSON.stringify(k) + ":" + write(obj[k])).join(",") + "}";
    }
    default:
      throw new TypeError(typeof value);
  }
}

/** The first value `write` refuses, in words with its path. */
function problem(value: unknown, path: string): string | undefined {
  if (typeof value === "number" && !Number.isFinite(value)) return `cannot hash ${value} at ${path}: only finite numbers are JSON`;
  if (value === null || ["string", "boolean", "number"].includes(typeof value)) return undefined;
  if (typeof value !== "object") return `cannot hash a ${typeof value} at ${path}: values must be plain JSON`;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [`${path}[${i}]`, v])
    : Object.keys(value)
        .sort()
        .map((k) => [`${path}.${k}`, (value as Record<string, unknown>)[k]]);
  for (const [at, v] of entries) {
    const p = v === undefined ? undefined : problem(v, at);
    if (p) return p;
  }
  return undefined;
}
