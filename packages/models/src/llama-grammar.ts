// How many tokens an in-process model's JSON answer can take. The grammars an answer is held to are its callers'
// (ChatOptions.grammar: generate.answer's in @citeflow/nodes); JSON schemas become grammars in llama.cpp.

/**
 * At most how many tokens JSON of this schema can take, when every string has a maxLength and
 * every array a maxItems (a token is at least one character); Infinity otherwise. A call with a
 * schema gets at least this many tokens, so a grammar-held answer always closes.
 */
export function jsonTokenBound(schema: unknown): number {
  const s = schema as { type?: string; enum?: unknown[]; const?: unknown; maxLength?: number; maxItems?: number; items?: unknown; properties?: Record<string, unknown> };
  if (s.enum) return Math.max(...s.enum.map((v) => JSON.stringify(v).length)) + 2;
  if (s.const !== undefined) return JSON.stringify(s.const).length + 2;
  switch (s.type) {
    case "string":
      return s.maxLength !== undefined ? s.maxLength + 4 : Infinity;
    case "boolean":
    case "null":
      return 6;
    case "array":
      return s.maxItems !== undefined ? 4 + s.maxItems * (jsonTokenBound(s.items) + 4) : Infinity;
    case "object":
      return 4 + Object.entries(s.properties ?? {}).reduce((sum, [k, v]) => sum + k.length + 8 + jsonTokenBound(v), 0);
    default:
      return Infinity;
  }
}
