import type { Insertable, Kysely, QueryResult } from "kysely";
import { failUnlessInserted } from "./already-exists.ts";
import { preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

/**
 * An INSERT of whole rows of `table`, prepared once per row count (see `preparedQuery`): the sign-in flow
 * inserts a challenge, a session and its audit events on every use. `columns` fixes the order in which a
 * row's values fill the parameters; a row lacking one of them inserts NULL there. A taken key is skipped
 * (ON CONFLICT DO NOTHING, so a transaction stays usable) and reported at the call as `already_exists`,
 * the other rows inserted all the same.
 */
export function preparedInsert<T extends keyof Database & string>(
  db: Kysely<Database>,
  cache: PreparedQueryCache,
  table: T,
  columns: readonly (keyof Insertable<Database[T]> & string)[],
): (rows: readonly Insertable<Database[T]>[]) => Promise<void> {
  const statements = new Map<number, (...values: unknown[]) => Promise<QueryResult<unknown>>>();
  const statementFor = (count: number) => {
    let statement = statements.get(count);
    if (statement === undefined) {
      statement = preparedStatement(db, cache, `${table}.insert.${count}`, count * columns.length, (...values: unknown[]) => {
        const rows = Array.from({ length: count }, (_, row) => Object.fromEntries(columns.map((column, i) => [column, values[row * columns.length + i]])));
        return db
          .insertInto(table)
          .values(rows as Insertable<Database[T]>[])
          .onConflict((conflict) => conflict.doNothing());
      });
      statements.set(count, statement);
    }
    return statement;
  };
  return async (rows) => {
    if (rows.length === 0) return;
    const values = rows.flatMap((row) => columns.map((column) => row[column] ?? null));
    const result = await statementFor(rows.length)(...values);
    failUnlessInserted(result.numAffectedRows, rows.length);
  };
}
