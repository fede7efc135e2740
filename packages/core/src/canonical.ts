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

/**
 * JSON.stringify with a replacer that sorts each object's keys (copying only an object whose keys are out of order)
 * and refuses what JSON cannot hold: the same text as writing it out by hand, at half the time and a fraction of the
 * garbage (canonical JSON was 40 % of what a question set allocated).
 */
function write(value: unknown): string {
  const text = JSON.stringify(value, sortedKeys) as string | undefined;
  if (text === undefined) throw new TypeError(typeof value);
  return text;
}

function sortedKeys(_key: string, v: unknown): unknown {
  switch (typeof v) {
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(String(v));
      return v;
    case "string":
    case "boolean":
    case "undefined":
      return v;
    case "object": {
      if (v === null || Array.isArray(v)) return v;
      const keys = Object.keys(v);
      let sorted = true;
      for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
      if (sorted) return v;
      const copy: Record<string, unknown> = {};
      for (const k of keys.sort()) copy[k] = (v as Record<string, unknown>)[k];
      return copy;
    }
    default:
      throw new TypeError(typeof v);
  }
}

/** The first value `write` refuses, in words with its path. */
function problem(value: unknown, path: string, inside: object[] = []): string | undefined {
  if (typeof value === "number" && !Number.isFinite(value)) return `cannot hash ${value} at ${path}: only finite numbers are JSON`;
  if (value === null || ["string", "boolean", "number"].includes(typeof value)) return undefined;
  if (typeof value !== "object") return `cannot hash a ${typeof value} at ${path}: values must be plain JSON`;
  if (inside.includes(value)) return `cannot hash the value at ${path}: it contains itself`;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [`${path}[${i}]`, v])
    : Object.keys(value)
        .sort()
        .map((k) => [`${path}.${k}`, (value as Record<string, unknown>)[k]]);
  for (const [at, v] of entries) {
    const p = v === undefined ? undefined : problem(v, at, [...inside, value]);
    if (p) return p;
  }
  return undefined;
}
