import type { z } from "zod";
import { VALUE_TYPES, VALUE_TYPE_NAMES, type ValueTypeName } from "./values.js";

type Schemas = typeof VALUE_TYPES;
/** What a value of each type is when a node receives it (checked, defaults filled in). */
type Received = { [K in ValueTypeName]: z.output<Schemas[K]> };
/** What a node may return for each type (defaults may be left out). */
type Returned = { [K in ValueTypeName]: z.input<Schemas[K]> };

/**
 * The TypeScript type a port type string stands for: `Passage[]` → `Passage[]`, `Text` → `string`;
 * `Any` and type variables (`T`, `T[]`) → `unknown`, `unknown[]`.
 */
export type ValueOf<T extends string, M extends Record<ValueTypeName, unknown> = Received> = T extends `${infer B}[]`
  ? B extends ValueTypeName
    ? M[B][]
    : unknown[]
  : T extends ValueTypeName
    ? M[T]
    : unknown;

type InputValue<S extends PortSpec> = S extends { many: true } ? ValueOf<S["type"]>[] : S extends { optional: true } ? ValueOf<S["type"]> | undefined : ValueOf<S["type"]>;

/** The values `run` receives for a node's declared inputs: `many` ports as arrays, unconnected `optional` ones undefined. */
export type InputsOf<I extends Record<string, PortSpec>> = { -readonly [K in keyof I]: InputValue<I[K]> };
/** A list a node returns may be readonly: the executor does not change it. */
type Produced<T> = T extends (infer E)[] ? readonly E[] : T;
/** What `run` returns for a node's declared outputs: one value per port. */
export type OutputsOf<O extends Record<string, PortSpec>> = { -readonly [K in keyof O]: Produced<ValueOf<O[K]["type"], Returned>> };

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

/**
 * The required inputs of a node that no edge feeds, in declaration order: the one rule by which a
 * graph is refused before it runs ("required input … is not connected") and the editor marks a
 * port before anyone runs it.
 */
export function unfedInputs(inputs: Record<string, Pick<PortSpec, "optional">>, fed: (port: string) => boolean): string[] {
  return Object.entries(inputs)
    .filter(([port, spec]) => !spec.optional && !fed(port))
    .map(([port]) => port);
}
