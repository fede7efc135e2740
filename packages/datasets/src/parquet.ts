import { Bool, DataType, Field, Float64, List, Struct, Table, Utf8, tableToIPC, vectorFromArray } from "apache-arrow";
import * as parquet from "parquet-wasm";

/** The Arrow type that holds every value given (nested lists and structs; absent values are null). */
function typeOf(values: unknown[]): DataType {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return new Utf8();
  if (present.every((v) => typeof v === "string")) return new Utf8();
  if (present.every((v) => typeof v === "boolean")) return new Bool();
  if (present.every((v) => typeof v === "number")) return new Float64();
  if (present.every(Array.isArray)) return new List(new Field("item", typeOf((present as unknown[][]).flat()), true));
  if (present.every((v) => typeof v === "object" && !Array.isArray(v))) {
    const objects = present as Array<Record<string, unknown>>;
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
    return new Struct(keys.map((k) => new Field(k, typeOf(objects.map((o) => o[k])), true)));
  }
  throw new Error(`cannot write mixed values (${[...new Set(present.map((v) => typeof v))].join(", ")}) to one Parquet column`);
}

/** Gives every struct all its fields (absent → null), so they read back as null, not "". */
function conform(v: unknown, t: DataType): unknown {
  if (v === null || v === undefined) return null;
  if (t instanceof List) return (v as unknown[]).map((x) => conform(x, t.valueType as DataType));
  if (t instanceof Struct) return Object.fromEntries(t.children.map((f) => [f.name, conform((v as Record<string, unknown>)[f.name], f.type as DataType)]));
  return v;
}

/** JSON rows as a Parquet file (zstd-free default compression of parquet-wasm). */
export function toParquet(rows: Array<Record<string, unknown>>): Uint8Array {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const columns = Object.fromEntries(
    keys.map((k) => {
      const values = rows.map((r) => r[k] ?? null);
      const type = typeOf(values);
      return [
        k,
        vectorFromArray(
          values.map((v) => conform(v, type)),
          type,
        ),
      ];
    }),
  );
  const table = new Table(columns);
  return parquet.writeParquet(parquet.Table.fromIPCStream(tableToIPC(table, "stream")));
}
