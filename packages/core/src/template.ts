/**
 * A small logic-less template language for prompts (a subset of Mustache/Handlebars):
 *   {{path.to.value}}                   insert (strings as-is, other values as JSON)
 *   {{#each list}} … {{/each}}          repeat; inside, fields of the item are in scope, plus
 *                                       {{this}}, {{@index}} (0-based), {{@number}} (1-based),
 *                                       {{@first}}, {{@last}}
 *   {{#if path}} … {{else}} … {{/if}}   truthy test (empty lists are false); {{#unless}} likewise
 * A missing variable is an error naming it and its line: a prompt should never silently lose text.
 * Templates are data: nothing in them is evaluated as code, and the work one costs is bounded —
 * parsing is linear in its size, and size, block nesting and the rendered text have limits (below)
 * that give an error naming them instead of a hang.
 */

/** The limits a template from a graph file or a prompt file must keep. */
export const TEMPLATE_LIMITS = { sourceChars: 1_000_000, nesting: 16, renderedChars: 4_000_000, steps: 2_000_000 } as const;

type Node =
  | { kind: "text"; text: string }
  | { kind: "var"; path: string; line: number }
  | { kind: "each"; path: string; line: number; body: Node[] }
  | { kind: "if"; path: string; line: number; negate: boolean; then: Node[]; else: Node[] };

export class TemplateError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (template line ${line})`);
    this.name = "TemplateError";
  }
}

const TAG = /\{\{\s*([#/]?)([@A-Za-z_][\w.@-]*)?(?:\s+([@A-Za-z_][\w.@-]*))?\s*\}\}/g;

export interface Template {
  render(scope: Record<string, unknown>): string;
  /** Names the template refers to (first path segment; loop-item fields included). */
  variables: string[];
}

export function compileTemplate(source: string): Template {
  if (source.length > TEMPLATE_LIMITS.sourceChars) throw new TemplateError(`the template has ${source.length} characters; the limit is ${TEMPLATE_LIMITS.sourceChars}`, 1);
  const root: Node[] = [];
  const stack: Array<{ node: Node & { kind: "each" | "if" }; target: Node[] }> = [];
  let target = root;
  let last = 0;
  const vars = new Set<string>();
  // Lines counted once, as the scan moves on (counting from the start at every tag was quadratic).
  let lineNo = 1;
  let counted = 0;
  const lineAt = (i: number) => {
    for (let j = source.indexOf("\n", counted); j !== -1 && j < i; j = source.indexOf("\n", j + 1)) lineNo++;
    counted = i;
    return lineNo;
  };
  for (const m of source.matchAll(TAG)) {
    const line = lineAt(m.index);
    if (m.index > last) target.push({ kind: "text", text: source.slice(last, m.index) });
    last = m.index + m[0].length;
    const [, sigil, word, arg] = m;
    if (sigil === "#") {
      if ((word !== "each" && word !== "if" && word !== "unless") || !arg) throw new TemplateError(`unknown block "{{#${word ?? ""}${arg ? " " + arg : ""}}}"`, line);
      vars.add(arg.split(".")[0]!);
      const node: Node & { kind: "each" | "if" } = word === "each" ? { kind: "each", path: arg, line, body: [] } : { kind: "if", path: arg, line, negate: word === "unless", then: [], else: [] };
      target.push(node);
      stack.push({ node, target });
      if (stack.length > TEMPLATE_LIMITS.nesting) throw new TemplateError(`blocks nested ${stack.length} deep; the limit is ${TEMPLATE_LIMITS.nesting}`, line);
      target = node.kind === "each" ? node.body : node.then;
    } else if (sigil === "/") {
      const open = stack.pop();
      const expected = open ? (open.node.kind === "each" ? "each" : open.node.negate ? "unless" : "if") : undefined;
      if (!open || word !== expected) throw new TemplateError(`"{{/${word ?? ""}}}" closes nothing${expected ? ` (expected {{/${expected}}})` : ""}`, line);
      target = open.target;
    } else if (word === "else" && !arg) {
      const open = stack[stack.length - 1];
      if (!open || open.node.kind !== "if") throw new TemplateError(`"{{else}}" outside {{#if}}`, line);
      target = open.node.else;
    } else if (word && !arg) {
      if (!word.startsWith("@") && word !== "this") vars.add(word.split(".")[0]!);
      target.push({ kind: "var", path: word, line });
    } else throw new TemplateError(`cannot read tag "${m[0]}"`, line);
  }
  if (stack.length) {
    const open = stack[stack.length - 1]!.node;
    throw new TemplateError(`{{#${open.kind === "each" ? "each" : "if"} ${open.path}}} is never closed`, open.line);
  }
  if (last < source.length) root.push({ kind: "text", text: source.slice(last) });
  return { render: (scope) => renderNodes(root, [scope], { chars: 0, steps: 0 }), variables: [...vars] };
}

export function renderTemplate(source: string, scope: Record<string, unknown>): string {
  return compileTemplate(source).render(scope);
}

function renderNodes(nodes: Node[], scopes: Array<Record<string, unknown>>, size: { chars: number; steps: number }): string {
  let out = "";
  const add = (text: string, line: number) => {
    size.chars += text.length;
    if (size.chars > TEMPLATE_LIMITS.renderedChars) throw new TemplateError(`the rendered text passed ${TEMPLATE_LIMITS.renderedChars} characters (nested {{#each}} blocks multiply)`, line);
    out += text;
  };
  for (const n of nodes) {
    if (++size.steps > TEMPLATE_LIMITS.steps) throw new TemplateError(`rendering took more than ${TEMPLATE_LIMITS.steps} steps (nested {{#each}} blocks multiply)`, "line" in n ? n.line : 1);
    switch (n.kind) {
      case "text":
        add(n.text, 1);
        break;
      case "var": {
        const v = lookup(n.path, scopes);
        if (v === undefined) throw new TemplateError(`template variable "${n.path}" is undefined`, n.line);
        add(typeof v === "string" ? v : JSON.stringify(v), n.line);
        break;
      }
      case "each": {
        const list = lookup(n.path, scopes);
        if (list === undefined) throw new TemplateError(`template list "${n.path}" is undefined`, n.line);
        if (!Array.isArray(list)) throw new TemplateError(`{{#each ${n.path}}} needs a list, got ${typeof list}`, n.line);
        list.forEach((item, i) => {
          const frame: Record<string, unknown> = {
            ...(typeof item === "object" && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : {}),
            this: item,
            "@index": i,
            "@number": i + 1,
            "@first": i === 0,
            "@last": i === list.length - 1,
          };
          out += renderNodes(n.body, [frame, ...scopes], size);
        });
        break;
      }
      case "if": {
        const v = lookup(n.path, scopes);
        const truthy = Array.isArray(v) ? v.length > 0 : Boolean(v);
        out += renderNodes(truthy !== n.negate ? n.then : n.else, scopes, size);
        break;
      }
    }
  }
  return out;
}

function lookup(path: string, scopes: Array<Record<string, unknown>>): unknown {
  const [head, ...rest] = path.split(".");
  for (const scope of scopes) {
    if (!Object.hasOwn(scope, head!)) continue;
    let v: unknown = scope[head!];
    for (const key of rest) {
      if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined;
      v = (v as Record<string, unknown>)[key];
    }
    return v;
  }
  return undefined;
}
