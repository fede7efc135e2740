/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, non-finite numbers refused.
 * Two values that mean the same thing serialise to the same string, so their hash is the same.
 * Browser-safe (no Node imports).
 */
export function canonicalJson(value: unknown): string {
  return write(value, "$");
}

function write(value: unknown, path: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`cannot hash ${value} at ${path}: only finite numbers are JSON`);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) {
        return "[" + value.map((v, i) => (v === undefined ? "null" : write(v, `${path}[${i}]`))).join(",") + "]";
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      return "{" + keys.map((k) => JSON.stringify(k) + ":" + write(obj[k], `${path}.${k}`)).join(",") + "}";
    }
    default:
      throw new TypeError(`cannot hash a ${typeof value} at ${path}: values must be plain JSON`);
  }
}
