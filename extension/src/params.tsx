/** A param form generated from a node's param JSON Schema; descriptions become help text. */
import type { CatalogueNode, GraphNode } from "@citeflow/core/browser";
import { useState } from "react";
import { trans } from "./i18n";
import { numberProblem } from "./param-check";

type Schema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  anyOf?: Schema[];
};

export function ParamsForm({ node, spec, onChange }: { node: GraphNode; spec: CatalogueNode; onChange: (key: string, value: unknown) => void }) {
  const props = ((spec.params as { properties?: Record<string, Schema> }).properties ?? {}) as Record<string, Schema>;
  const keys = Object.keys(props);
  if (!keys.length) return <p className="cf-muted">{trans.__("No params.")}</p>;
  return (
    <form className="cf-params" onSubmit={(e) => e.preventDefault()}>
      {keys.map((k) => (
        <Field key={`${node.id}/${k}`} name={k} schema={props[k]!} value={node.params[k]} onChange={(v) => onChange(k, v)} />
      ))}
    </form>
  );
}

function kindOf(s: Schema): string {
  if (s.enum) return "enum";
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (t) return t;
  const first = s.anyOf?.find((x) => x.type !== "null");
  return first ? kindOf(first) : "json";
}

function Field({ name, schema, value, onChange }: { name: string; schema: Schema; value: unknown; onChange: (v: unknown) => void }) {
  const kind = kindOf(schema);
  const id = `cf-param-${name}`;
  // The default, as the field would hold it: a string as it reads (an empty one: "default"), anything else as JSON.
  const placeholder = schema.default === undefined ? "" : schema.default === "" ? trans.__("default") : typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default);
  const label = (
    <label htmlFor={id} title={schema.description}>
      {name}
    </label>
  );
  const help = schema.description && <small className="cf-help">{schema.description}</small>;
  let input;
  if (kind === "boolean") {
    input = <input id={id} name={name} type="checkbox" checked={(value ?? schema.default) === true} onChange={(e) => onChange(e.target.checked)} />;
  } else if (kind === "enum") {
    input = (
      <select
        id={id}
        name={name}
        value={value === undefined ? "" : String(value)}
        onChange={(e) => onChange(e.target.value === "" ? undefined : schema.enum!.find((x) => String(x) === e.target.value))}
      >
        <option value="">{trans.__("default (%1)", placeholder)}</option>
        {schema.enum!.map((x) => (
          <option key={String(x)} value={String(x)}>
            {String(x)}
          </option>
        ))}
      </select>
    );
  } else if (kind === "number" || kind === "integer") {
    // An optional number's schema may be anyOf [number, null]: its bounds are on the number.
    const n = schema.anyOf?.find((x) => x.type === "number" || x.type === "integer") ?? schema;
    const problem = numberProblem(n, kind, value);
    input = (
      <>
        <input
          id={id}
          name={name}
          type="number"
          step={kind === "integer" ? 1 : "any"}
          {...(n.minimum !== undefined ? { min: n.minimum } : {})}
          {...(n.maximum !== undefined ? { max: n.maximum } : {})}
          placeholder={placeholder}
          value={typeof value === "number" ? value : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
          aria-invalid={problem !== undefined}
        />
        {problem && <small className="cf-error">{problem}</small>}
      </>
    );
  } else if (kind === "string") {
    // Suggestions the kernel gives (a model param: the installed models of its kind); any other text is still allowed.
    const options = (schema.examples ?? []).filter((x): x is string => typeof x === "string");
    input = (
      <>
        <input
          id={id}
          name={name}
          type="text"
          placeholder={placeholder}
          {...(options.length ? { list: `${id}-options` } : {})}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
        />
        {options.length > 0 && (
          <datalist id={`${id}-options`}>
            {options.map((o) => (
              <option key={o} value={o} />
            ))}
          </datalist>
        )}
      </>
    );
  } else {
    input = <JsonField id={id} value={value} placeholder={placeholder} onChange={onChange} />;
  }
  return (
    <div className={`cf-field cf-field-${kind}`}>
      {label}
      {input}
      {help}
    </div>
  );
}

function JsonField({ id, value, placeholder, onChange }: { id: string; value: unknown; placeholder: string; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value));
  const [error, setError] = useState<string>();
  return (
    <>
      <input
        id={id}
        type="text"
        className="cf-mono"
        placeholder={placeholder}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          try {
            onChange(text.trim() === "" ? undefined : JSON.parse(text));
            setError(undefined);
          } catch (e) {
            setError(trans.__("Not JSON: %1", (e as Error).message));
          }
        }}
      />
      {error && <small className="cf-error">{error}</small>}
    </>
  );
}
