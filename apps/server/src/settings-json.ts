import { invalidArgument } from "@gatehouse/core";

type KeySpec = Readonly<Record<string, readonly [string, "boolean" | "integer"]>>;

type Patch<S extends KeySpec> = { -readonly [K in keyof S as S[K][0]]?: S[K][1] extends "boolean" ? boolean : number };

/** Maps a snake_case settings patch to the core's camelCase one; unknown keys and wrong types name the key. */
export function parseSettingsJson<S extends KeySpec>(value: unknown, spec: S): Patch<S> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidArgument("settings", "must be a JSON object");
  const patch: Record<string, boolean | number> = {};
  for (const [key, raw] of Object.entries(value)) {
    const entry = spec[key];
    if (entry === undefined) throw invalidArgument(key, `unknown key (expected one of: ${Object.keys(spec).join(", ")})`);
    const [name, type] = entry;
    if (type === "boolean" ? typeof raw !== "boolean" : !Number.isInteger(raw)) {
      throw invalidArgument(key, type === "boolean" ? "must be true or false" : "must be a whole number");
    }
    patch[name] = raw as boolean | number;
  }
  return patch as Patch<S>;
}
