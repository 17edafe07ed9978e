/** What every memory store shares: copies on the way out, composite keys, ordering and the duplicate-key error. */
import { GatehouseError } from "../errors.ts";

export function copyOrNull<T extends object>(record: T | undefined): T | null {
  return record === undefined ? null : { ...record };
}

/** Composite Map keys: JSON keeps ("a:b", "c") and ("a", "b:c") apart. */
export function keyOf(...parts: readonly (string | number)[]): string {
  return JSON.stringify(parts);
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a user's record in `orgId` with `id` is reached by an eviction of `scopeOrgId` (undefined: every org) keeping `keepId`. */
export function inScope(orgId: string, id: string, scopeOrgId: string | undefined, keepId: string | undefined): boolean {
  return (scopeOrgId === undefined || orgId === scopeOrgId) && id !== keepId;
}

export function alreadyExists(): GatehouseError {
  return new GatehouseError("already_exists");
}

export function deleteWhere<T>(records: Map<string, T>, matches: (record: T) => boolean): number {
  let deleted = 0;
  for (const [id, record] of records) {
    if (matches(record)) {
      records.delete(id);
      deleted++;
    }
  }
  return deleted;
}
