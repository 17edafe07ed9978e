import type { Database as BetterSqliteDatabase, Statement } from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/** Queries come from a fixed set of shapes (a few dozen); the cap only guards against unbounded ones. */
const DEFAULT_CAPACITY = 500;

/**
 * The database as kysely's SqliteDialect sees it, with each SQL string prepared once. Kysely calls
 * `prepare` on every query, and preparing costs several times more than running a point lookup.
 * A statement still being iterated is busy, so a caller that needs one meanwhile gets a fresh statement.
 */
export function withStatementCache(sqlite: BetterSqliteDatabase, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    prepare(sql) {
      const cached = statements.get(sql);
      if (cached !== undefined && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (cached === undefined) {
        // Oldest first: with a bounded set of shapes eviction only happens to the unbounded ones.
        if (statements.size >= capacity) statements.delete(statements.keys().next().value ?? sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
