/** A number param checked against its JSON Schema as it is typed, so the form says what a run would refuse. */
import { trans } from "./i18n";

export interface NumberSchema {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** What is wrong with a number against its param's schema (the rule it breaks); undefined when nothing is. */
export function numberProblem(schema: NumberSchema, kind: string, value: unknown): string | undefined {
  if (typeof value !== "number") return undefined;
  if (!Number.isFinite(value)) return trans.__("must be a number");
  if (kind === "integer" && !Number.isInteger(value)) return trans.__("must be a whole number");
  if (schema.minimum !== undefined && value < schema.minimum) return trans.__("must be at least %1", schema.minimum);
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return trans.__("must be more than %1", schema.exclusiveMinimum);
  if (schema.maximum !== undefined && value > schema.maximum) return trans.__("must be at most %1", schema.maximum);
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return trans.__("must be less than %1", schema.exclusiveMaximum);
  return undefined;
}
