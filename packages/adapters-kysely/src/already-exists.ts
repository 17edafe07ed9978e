import { GatehouseError } from "@gatehouse/core";
import type { InsertQueryBuilder, InsertResult } from "kysely";
import { isUniqueViolation } from "./dialect-differences.ts";

/**
 * Runs an INSERT of `rows` rows that skips a duplicate key, and reports the duplicate the way the ports
 * promise: `GatehouseError("already_exists")`. The conflict is skipped rather than caught: inside a
 * PostgreSQL transaction a failed statement aborts the whole transaction, and the caller may go on (a taken slug).
 */
export async function insertUnlessTaken<DB, TB extends keyof DB>(insert: InsertQueryBuilder<DB, TB, InsertResult>, rows = 1): Promise<void> {
  const result = await insert.onConflict((conflict) => conflict.doNothing()).executeTakeFirstOrThrow();
  failUnlessInserted(result.numInsertedOrUpdatedRows, rows);
}

/** The check of `insertUnlessTaken`, for a prepared INSERT … ON CONFLICT DO NOTHING: `inserted` is its affected rows. */
export function failUnlessInserted(inserted: bigint | undefined, rows = 1): void {
  if ((inserted ?? 0n) < BigInt(rows)) throw new GatehouseError("already_exists");
}

/** Runs a write whose unique violation cannot be skipped (an UPDATE) and reports it as `already_exists`. */
export async function failOnDuplicate<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new GatehouseError("already_exists");
    throw error;
  }
}
