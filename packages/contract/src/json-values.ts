/**
 * Reading snake_case JSON bodies. The lenient readers are for answers a client receives (a wrong
 * type reads as absent); the strict ones are for input a server receives (a wrong type or an
 * unknown key is refused, naming it).
 */
import type { Refuse } from "./refusal.ts";

export type JsonObject = Readonly<Record<string, unknown>>;

export const asObject = (value: unknown): JsonObject | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
export const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
export const asString = (value: unknown): string => (typeof value === "string" ? value : "");
/** Absent, wrong-typed and empty strings all read as undefined, as an unset proto field does. */
export const asOptionalString = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** A JSON object with no key outside `keys`; `path` names it in the refusal. */
export function strictObject(value: unknown, path: string, keys: readonly string[], refuse: Refuse): JsonObject {
  const object = asObject(value);
  if (object === null) throw refuse(path, "must be a JSON object");
  const unknown = Object.keys(object).find((key) => !keys.includes(key));
  if (unknown !== undefined) throw refuse(`${path}.${unknown}`, `unknown key (expected one of: ${keys.join(", ")})`);
  return object;
}

export interface Expected<T> {
  readonly is: (value: unknown) => value is T;
  /** Completes "must be …". */
  readonly description: string;
}

export const BOOLEAN: Expected<boolean> = { is: (v): v is boolean => typeof v === "boolean", description: "true or false" };
export const INTEGER: Expected<number> = { is: (v): v is number => Number.isInteger(v), description: "a whole number" };
export const STRING: Expected<string> = { is: (v): v is string => typeof v === "string", description: "a string" };
export const STRING_LIST: Expected<string[]> = {
  is: (v): v is string[] => Array.isArray(v) && v.every((entry) => typeof entry === "string"),
  description: "a list of strings",
};

/** A required key of a strict object; `field` names it in the refusal. */
export function requiredField<T>(source: JsonObject, key: string, field: string, expected: Expected<T>, refuse: Refuse): T {
  const value = source[key];
  if (!expected.is(value)) throw refuse(field, value === undefined ? "is required" : `must be ${expected.description}`);
  return value;
}
