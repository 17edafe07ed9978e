import type { Insertable, Kysely } from "kysely";
import { failOnDuplicate } from "./already-exists.ts";
import { isUniqueViolation } from "./dialect-differences.ts";
import { preparedInsert } from "./prepared-insert.ts";
import type { PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

/**
 * The tables whose rows a unit of work inserts without reading anything back: each key is fresh from the
 * CSPRNG (an audit event's id, a challenge's id, a session's id and token hashes), so nothing waits on the
 * answer and the insert may ride with the transaction's next statement.
 */
const RIDING_TABLES = ["audit_events", "mfa_challenges", "sessions"] as const satisfies readonly (keyof Database)[];
type RidingTable = (typeof RIDING_TABLES)[number];

/**
 * The INSERT of whole rows of a riding table. Inside a transaction it is a plain INSERT marked
 * `RIDES_WITH_NEXT_STATEMENT`: on PostgreSQL it goes out with the transaction's next statement (for the
 * sign-in's units of work, the COMMIT), one round trip fewer, and a taken key fails the transaction there
 * (`ridingKeyTaken`); where it runs at once (SQLite, PGlite) a taken key rejects here with `already_exists`.
 * Outside a transaction a taken key is skipped, the other rows inserted, and `already_exists` reported.
 */
export function ridingInsert<T extends RidingTable>(
  db: Kysely<Database>,
  cache: PreparedQueryCache,
  table: T,
  columns: readonly (keyof Insertable<Database[T]> & string)[],
): (rows: readonly Insertable<Database[T]>[]) => Promise<void> {
  if (!db.isTransaction) return preparedInsert(db, cache, table, columns, "already_exists");
  const insert = preparedInsert(db, cache, table, columns, "fail", { rides: true });
  return (rows) => failOnDuplicate(() => insert(rows));
}

/** A taken key of a riding insert, however late in its transaction it surfaced (a later statement, the commit). */
export function ridingKeyTaken(error: unknown): boolean {
  const table = (error as { table?: unknown } | null)?.table;
  return isUniqueViolation(error) && RIDING_TABLES.some((riding) => riding === table);
}
