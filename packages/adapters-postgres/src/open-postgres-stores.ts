import {
  createKyselyStores,
  pingDatabase,
  purgeExpired,
  queryTimingLog,
  StorageFaultsDialect,
  storageFaultCause,
  type Database,
  type OpenedStores,
  type QueryTimingHook,
  type StorageFaultObserver,
} from "@gatehouse/adapters-kysely";
import { Kysely, PGliteDialect, type Dialect, type PGlite } from "kysely";
import pg from "pg";
import { withCurrentSchemaIntrospection } from "./current-schema-introspection.ts";
import { migrateUnderLock } from "./migrate-under-lock.ts";
import { PoolDialect } from "./pool-dialect.ts";
import { postgresFault } from "./storage-faults.ts";

export type PostgresStoresOptions = PostgresConnectionOptions & {
  /** Called after every query with its duration (for metrics); never with its SQL or parameters. */
  readonly onQuery?: QueryTimingHook | undefined;
  /** Told of every storage fault (the stores then reject with `storage_unavailable`) and of the recovery; never of SQL or parameters. */
  readonly faults?: StorageFaultObserver | undefined;
  /**
   * How the 0014 migration hashes stored device fingerprints: `deviceFingerprintHash(factorEncryptionKey)` of
   * @gatehouse/core, with the key the core is given. Needed only to upgrade a database that holds devices.
   */
  readonly hashDeviceFingerprint?: ((fingerprint: string) => string) | undefined;
};

export type PostgresConnectionOptions =
  /** Gatehouse creates and owns a pool (`max` connections, default 10) and ends it on `close()`. */
  | ({ readonly connectionString: string; readonly max?: number } & StatementOptions & PostgresTimeouts)
  /**
   * The embedder's pool: Gatehouse queries through it and never ends it (`close()` leaves it
   * open). Its connections' `search_path` decides the schema Gatehouse's tables live in, and its
   * configuration the timeouts.
   */
  | ({ readonly pool: pg.Pool } & StatementOptions)
  /** An in-process PGlite (tests, demos). The caller owns it: `close()` does not close it. */
  | { readonly pglite: PGlite };

export interface StatementOptions {
  /**
   * Send every statement with parameters as a named (server-side prepared) statement, parsed once per
   * connection (default true; docs/decisions/named-statements.md). Turn off behind a pooler in transaction
   * mode (PgBouncer before 1.21, or without `max_prepared_statements`), which runs consecutive statements on
   * different server sessions.
   */
  readonly preparedStatements?: boolean;
}

/** How long a request may wait on PostgreSQL, on every connection of a pool Gatehouse creates. */
export interface PostgresTimeouts {
  /**
   * The longest a statement runs, or waits for a lock, before it fails (`statement_timeout`,
   * `lock_timeout`; default 5000). The client gives up on an answer a second later (a partition, where the
   * server's own timeout cannot reach it), and a transaction left idle twice as long is ended by the server.
   */
  readonly statementTimeoutMs?: number;
  /** The longest a request waits for a connection, a new one or one from the pool (default 5000). */
  readonly connectTimeoutMs?: number;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** How much longer than the server's statement timeout the client waits for an answer before it calls the connection lost. */
const CLIENT_READ_MARGIN_MS = 1_000;
/** TCP keepalive probes start after this much silence, so a dead peer is found on idle connections too. */
const KEEPALIVE_DELAY_MS = 10_000;

export interface PostgresStores extends OpenedStores {
  /** Migrations this open applied, in order; empty when the schema was already current. */
  readonly applied: readonly string[];
  /** Ends the pool when Gatehouse created it; a pool or PGlite passed in is left to its owner. */
  close(): Promise<void>;
}

/**
 * pg's own default, kept after measuring (docs/decisions/postgres-pool-size.md): one Node process waits on
 * round trips, so the pool bounds the reads in flight.
 */
const DEFAULT_MAX_CONNECTIONS = 10;

/** Every pooled connection's bounds and keepalive. */
function connectionConfig(connectionString: string, timeouts: PostgresTimeouts): pg.ClientConfig {
  const statementTimeoutMs = timeouts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  return {
    ...migrationConfig(connectionString, timeouts),
    statement_timeout: statementTimeoutMs,
    lock_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: 2 * statementTimeoutMs,
    query_timeout: statementTimeoutMs + CLIENT_READ_MARGIN_MS,
  };
}

/**
 * The migration's one connection: no statement, lock or read timeout, since a migration may rewrite a large
 * table and a replica may wait its turn for the migration lock as long as another replica migrates.
 */
function migrationConfig(connectionString: string, timeouts: PostgresTimeouts): pg.ClientConfig {
  return {
    connectionString,
    connectionTimeoutMillis: timeouts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
}

function ownedPool(config: pg.ClientConfig, max: number): pg.Pool {
  const pool = new pg.Pool({ ...config, max });
  // An idle connection that breaks (server restart, failover) is emitted here and would end the process if
  // unheard. pg has already dropped it from the pool; the next query connects afresh. A checked-out one is
  // heard by its own listener (pool-dialect.ts).
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
  let migration: Dialect | undefined;
  const namedStatements = !("preparedStatements" in options && options.preparedStatements === false);
  if ("connectionString" in options) {
    const config = connectionConfig(options.connectionString, options);
    dialect = new PoolDialect({ pool: ownedPool(config, options.max ?? DEFAULT_MAX_CONNECTIONS), ownsPool: true, namedStatements });
    owned = true;
    migration = new PoolDialect({ pool: ownedPool(migrationConfig(options.connectionString, options), 1), ownsPool: true, namedStatements: false });
  } else if ("pool" in options) {
    dialect = new PoolDialect({ pool: options.pool, ownsPool: false, namedStatements });
    owned = false;
  } else {
    dialect = new PGliteDialect({ pglite: options.pglite });
    owned = false;
  }
  // Gatehouse lives in one schema; introspecting the others would only let their DDL fail ours.
  const log = options.onQuery === undefined ? {} : { log: queryTimingLog(options.onQuery) };
  const db = new Kysely<Database>({ dialect: new StorageFaultsDialect(withCurrentSchemaIntrospection(dialect), postgresFault, options.faults), ...log });
  // kysely's destroy() ends the pool (or closes the PGlite), so it runs only for what Gatehouse
  // created; once, because pg refuses a second end().
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= owned ? db.destroy() : Promise.resolve());
  let applied: string[];
  try {
    if (migration === undefined) applied = await migrateUnderLock(db, options.hashDeviceFingerprint);
    else {
      const migrating = new Kysely<Database>({ dialect: new StorageFaultsDialect(withCurrentSchemaIntrospection(migration), postgresFault) });
      try {
        applied = await migrateUnderLock(migrating, options.hashDeviceFingerprint);
      } finally {
        await migrating.destroy();
      }
    }
  } catch (error) {
    await close();
    throw storageFaultCause(error);
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
