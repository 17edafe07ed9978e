import { sql, type Kysely, type LogEvent } from "kysely";
import type { Database } from "./schema.ts";

/** One finished query: how long it took, what kind of statement, and whether it failed. Never its SQL or parameters. */
export interface QueryTiming {
  readonly durationMs: number;
  /** The statement's first keyword, lower case (`select`, `insert`, `update`, `delete`, `with`, …): a bounded label. */
  readonly operation: string;
  readonly failed: boolean;
}

export type QueryTimingHook = (timing: QueryTiming) => void;

const KNOWN_OPERATIONS = new Set(["select", "insert", "update", "delete", "with", "begin", "commit", "rollback", "pragma", "create", "alter", "drop"]);

/**
 * kysely's `log` option, turned into a timing hook for metrics. A throwing hook is swallowed:
 * observing a query must never fail it.
 */
export function queryTimingLog(hook: QueryTimingHook): (event: LogEvent) => void {
  return (event) => {
    // Past any leading comments, which say nothing of the statement's kind.
    const keyword = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*([a-z]+)/i.exec(event.query.sql)?.[1]?.toLowerCase() ?? "other";
    try {
      hook({ durationMs: event.queryDurationMillis, operation: KNOWN_OPERATIONS.has(keyword) ? keyword : "other", failed: event.level === "error" });
    } catch {
      // metrics are best effort
    }
  };
}

/** The cheapest round trip that proves the database answers: the readiness probe's query. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
