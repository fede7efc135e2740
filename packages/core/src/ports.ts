import type { z } from "zod";
import { VALUE_TYPES, VALUE_TYPE_NAMES, type ValueTypeName } from "./values.js";

/**
 * Port types are strings: a value type (`Passage`), a list of one (`Passage[]`), `Any`, or a type
 * variable (`T`, `T[]`) that generic nodes such as list.merge use. A variable is bound per node
 * instance by whatever is connected to it, and its outputs take the bound type.
 */
export interface PortSpec {
  type: string;
  description?: string;
  /** An unconnected optional input is `undefined` in `run`. */
  optional?: boolean;
  /** Accepts any number of edges; `run` receives an array with one value per edge, in edge order. */
  many?: boolean;
}

export interface ParsedType {
  base: string;
  list: boolean;
  variable: boolean;
}

const TYPE_RE = /^([A-Za-z][A-Za-z0-9]*)(\[\])?$/;

export function parsePortType(type: string): ParsedType | undefined {
  const m = TYPE_RE.exec(type);
  if (!m) return undefined;
  const base = m[1]!;
  const variable = /^[A-Z]$/.test(base);
  if (!variable && !(VALUE_TYPE_NAMES as string[]).includes(base)) return undefined;
  return { base, list: m[2] !== undefined, variable };
}

export function isValidPortType(type: string): boolean {
  return parsePortType(type) !== undefined;
}

export type Bindings = Record<string, string>;

/** Replace bound type variables; unbound ones stay as they are. */
export function substitute(type: string, bindings: Bindings): string {
  const p = parsePortType(type);
  if (!p || !p.variable) return type;
  const bound = bindings[p.base];
  if (bound === undefined) return type;
  return p.list ? `${bound}[]` : bound;
}

export type ConnectResult = { ok: true; bind?: [string, string] } | { ok: false; reason: string };

/**
 * Can a value of type `source` flow into an input of type `target`?
 * Rules: same type; `Any` on either side (a value arriving from `Any` is checked at run time);
 * an unbound variable on the source side matches anything of the same shape; a variable on the
 * target side binds to the source (`T[]` takes `Passage[]` and binds `T = Passage`).
 */
export function canConnect(source: string, target: string, targetBindings: Bindings = {}): ConnectResult {
  const s = parsePortType(source);
  const t0 = parsePortType(target);
  if (!s) return { ok: false, reason: `unknown value type "${source}"` };
  if (!t0) return { ok: false, reason: `unknown value type "${target}"` };
  const t = parsePortType(substitute(target, targetBindings))!;
  const fail = (): ConnectResult => ({ ok: false, reason: `${source} cannot flow into ${substitute(target, targetBindings)}` });

  if (t.base === "Any" && !t.list) return { ok: true };
  if (s.base === "Any" && !s.list) return { ok: true };
  if (s.variable) {
    // Unbound upstream variable: its type is only known at run time.
    if (t.variable) return { ok: true };
    return s.list === t.list || (t.base === "Any" && !t.list) ? { ok: true } : fail();
  }
  if (t.variable) {
    if (t.list && !s.list) return fail();
    const bound = t.list ? s.base : s.list ? `${s.base}[]` : s.base;
    return { ok: true, bind: [t.base, bound] };
  }
  if (s.list !== t.list) return fail();
  if (s.base === t.base || t.base === "Any" || s.base === "Any") return { ok: true };
  return fail();
}

/** The zod schema values of a port type must satisfy, or undefined while a variable is unbound. */
export function schemaFor(type: string): z.ZodType | undefined {
  const p = parsePortType(type);
  if (!p || p.variable) return undefined;
  const base = VALUE_TYPES[p.base as ValueTypeName] as z.ZodType;
  return p.list ? (base.array() as z.ZodType) : base;
}
