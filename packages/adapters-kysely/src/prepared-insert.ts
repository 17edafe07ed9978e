import type { Insertable, Kysely, QueryResult } from "kysely";
import { failUnlessInserted } from "./already-exists.ts";
import { preparedStatement, type PreparedQueryCache, type PreparedStatementOptions } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

/** What an insert does with a taken key: fail the statement (inside a transaction), or skip it and report `already_exists`. */
export type OnTaken = "fail" | "already_exists";

/**
 * An INSERT of whole rows of `table`, prepared once per row count (see `preparedQuery`): the sign-in flow
 * inserts a challenge, a session and its audit events on every use, and kysely's builder and compiler cost
 * more than SQLite does for each. `columns` fixes the order in which a row's values fill the parameters;
 * a row lacking one of them inserts NULL there. With `already_exists`, a taken key is skipped (ON CONFLICT
 * DO NOTHING) and reported as `insertUnlessTaken` reports it.
 */
export function preparedInsert<T extends keyof Database & string>(
  db: Kysely<Database>,
  cache: PreparedQueryCache,
  table: T,
  columns: readonly (keyof Insertable<Database[T]> & string)[],
  onTaken: OnTaken,
  options: PreparedStatementOptions = {},
): (rows: readonly Insertable<Database[T]>[]) => Promise<void> {
  const statements = new Map<number, (...values: unknown[]) => Promise<QueryResult<unknown>>>();
  const statementFor = (count: number) => {
    let statement = statements.get(count);
    if (statement === undefined) {
      const name = `${table}.insert.${count}.${onTaken}${options.rides === true ? ".rides" : ""}`;
      statement = preparedStatement(
        db,
        cache,
        name,
        count * columns.length,
        (...values: unknown[]) => {
          const rows = Array.from({ length: count }, (_, row) => Object.fromEntries(columns.map((column, i) => [column, values[row * columns.length + i]])));
          const insert = db.insertInto(table).values(rows as Insertable<Database[T]>[]);
          return onTaken === "fail" ? insert : insert.onConflict((conflict) => conflict.doNothing());
        },
        options,
      );
      statements.set(count, statement);
    }
    return statement;
  };
  return async (rows) => {
    if (rows.length === 0) return;
    const values = rows.flatMap((row) => columns.map((column) => row[column] ?? null));
    const result = await statementFor(rows.length)(...values);
    if (onTaken === "already_exists" && options.rides !== true) failUnlessInserted(result.numAffectedRows, rows.length);
  };
}
