import {
  createKyselyStores,
  pingDatabase,
  purgeExpired,
  queryTimingLog,
  type Database,
  type PurgedCounts,
  type PurgeRetention,
  type QueryTimingHook,
} from "@gatehouse/adapters-kysely";
import type { EpochMs, Stores } from "@gatehouse/core";
import { Kysely, PGliteDialect, PostgresDialect, type Dialect, type PGlite } from "kysely";
import pg from "pg";
import { withCurrentSchemaIntrospection } from "./current-schema-introspection.ts";
import { migrateUnderLock } from "./migrate-under-lock.ts";
import { namedStatementPool } from "./named-statement-pool.ts";

export type PostgresStoresOptions = PostgresConnectionOptions & {
  /** Called after every query with its duration (for metrics); never with its SQL or parameters. */
  readonly onQuery?: QueryTimingHook | undefined;
};

export type PostgresConnectionOptions =
  /** Gatehouse creates and owns a pool (`max` connections, default 10) and ends it on `close()`. */
  | ({ readonly connectionString: string; readonly max?: number } & StatementOptions)
  /**
   * The embedder's pool: Gatehouse queries through it and never ends it (`close()` leaves it
   * open). Its connections' `search_path` decides the schema Gatehouse's tables live in.
   */
  | ({ readonly pool: pg.Pool } & StatementOptions)
  /** An in-process PGlite (tests, demos). The caller owns it: `close()` does not close it. */
  | { readonly pglite: PGlite };

export interface StatementOptions {
  /**
   * Send every statement with parameters as a named (server-side prepared) statement, parsed once per
   * connection (default true; see named-statement-pool.ts). Turn off behind a pooler in transaction mode (PgBouncer before 1.21, or
   * without `max_prepared_statements`), which runs consecutive statements on different server sessions.
   */
  readonly preparedStatements?: boolean;
}

export interface PostgresStores {
  readonly stores: Stores;
  readonly db: Kysely<Database>;
  /** Migrations this open applied, in order; empty when the schema was already current. */
  readonly applied: readonly string[];
  /** Deletes dead rows (ended rate-limit windows, stale retired tokens, old intents and challenges) and audit events past their retention; see `purgeExpired`. */
  purgeExpired(now: EpochMs, retention: PurgeRetention): Promise<PurgedCounts>;
  /** A cheap `select 1`: rejects while the database is unreachable (readiness probes). */
  ping(): Promise<void>;
  /** Ends the pool when Gatehouse created it; a pool or PGlite passed in is left to its owner. */
  close(): Promise<void>;
}

/**
 * pg's own default, kept after measuring (README "Decisions"): one Node process waits on round trips, so the
 * pool bounds the reads in flight, and 2 × cores (4 here) served a quarter fewer requests than 10 on this machine.
 */
const DEFAULT_MAX_CONNECTIONS = 10;
/** A request waits this long for a free connection, then fails instead of hanging while PostgreSQL is away. */
const CONNECTION_TIMEOUT_MS = 10_000;

function ownedPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS });
  // An idle connection that breaks (server restart, failover) is emitted here and would crash the
  // process if unheard. pg has already dropped it from the pool; the next query connects afresh.
  pool.on("error", () => {});
  return pool;
}

/**
 * Connects to PostgreSQL, migrates the schema under an advisory lock (safe when several replicas
 * start at once) and returns the Gatehouse stores. `bigint` columns are converted by the shared
 * repositories (`fromDbBigint` accepts pg's strings), so an embedder's pool needs no type parsers.
 */
export async function openPostgresStores(options: PostgresStoresOptions): Promise<PostgresStores> {
  let dialect: Dialect;
  let owned: boolean;
  const named = (pool: pg.Pool) => ("preparedStatements" in options && options.preparedStatements === false ? pool : namedStatementPool(pool));
  const log = options.onQuery === undefined ? {} : { log: queryTimingLog(options.onQuery) };
  if ("connectionString" in options) {
    dialect = new PostgresDialect({ pool: named(ownedPool(options.connectionString, options.max ?? DEFAULT_MAX_CONNECTIONS)) });
    owned = true;
  } else if ("pool" in options) {
    dialect = new PostgresDialect({ pool: named(options.pool) });
    owned = false;
  } else {
    dialect = new PGliteDialect({ pglite: options.pglite });
    owned = false;
  }
  // Gatehouse lives in one schema; introspecting the others would only let their DDL fail ours.
  const db = new Kysely<Database>({ dialect: withCurrentSchemaIntrospection(dialect), ...log });
  // kysely's destroy() ends the pool (or closes the PGlite), so it runs only for what Gatehouse
  // created; once, because pg refuses a second end().
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= owned ? db.destroy() : Promise.resolve());
  let applied: string[];
  try {
    applied = await migrateUnderLock(db);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    stores: createKyselyStores(db, "postgres"),
    db,
    applied,
    purgeExpired: (now, retention) => purgeExpired(db, now, retention),
    ping: () => pingDatabase(db),
    close,
  };
}
