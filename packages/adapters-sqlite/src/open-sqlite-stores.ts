import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import {
  createKyselyStores,
  pingDatabase,
  migrateToLatest,
  purgeExpired,
  queryTimingLog,
  storageFaultCause,
  StorageFaultsDialect,
  type Database,
  type OpenedStores,
  type QueryTimingHook,
  type StorageFaultObserver,
} from "@gatehouse/adapters-kysely";
import BetterSqlite3 from "better-sqlite3";
import { Kysely } from "kysely";
import { startBackgroundCheckpoint, type BackgroundCheckpoint } from "./background-checkpoint.ts";
import { ImmediateTransactionsDialect } from "./immediate-transactions.ts";
import { withStatementCache } from "./statement-cache.ts";
import { sqliteFault } from "./storage-faults.ts";

export interface SqliteStoresOptions {
  /** Database file path (its directory is created when missing), or `:memory:`. */
  readonly filename: string;
  /** Called after every query with its duration (for metrics); never with its SQL or parameters. */
  readonly onQuery?: QueryTimingHook | undefined;
  /** Told of every storage fault (the stores then reject with `storage_unavailable`) and of the recovery; never of SQL or parameters. */
  readonly faults?: StorageFaultObserver | undefined;
  /** The longest a write waits for another process's write lock before it fails (`busy_timeout`; default 5000). */
  readonly busyTimeoutMs?: number | undefined;
  /**
   * Checkpoint the WAL from a worker thread instead of inside the commit that fills it (default false; see
   * background-checkpoint.ts): the slowest writes get faster, and the worker's V8 isolate adds memory
   * (docs/decisions/sqlite-background-checkpoint.md).
   */
  readonly backgroundCheckpoint?: boolean | undefined;
  /**
   * How the 0014 migration hashes stored device fingerprints: `deviceFingerprintHash(factorEncryptionKey)` of
   * @gatehouse/core, with the key the core is given. Needed only to upgrade a database that holds devices.
   */
  readonly hashDeviceFingerprint?: ((fingerprint: string) => string) | undefined;
}

export interface SqliteStores extends OpenedStores {
  /** Migrations this open applied, in order; empty when the file was already current. */
  readonly appliedMigrations: readonly string[];
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) a SQLite database, migrates it to the latest schema and returns the
 * Gatehouse stores over it. One connection per process: kysely serialises its queries, which keeps
 * transactions whole; other processes sharing the file coordinate through WAL and the busy timeout.
 */
export async function openSqliteStores(options: SqliteStoresOptions): Promise<SqliteStores> {
  if (options.filename !== ":memory:") createPrivately(options.filename);
  const sqlite = new BetterSqlite3(options.filename);
  try {
    // WAL lets readers run beside the one writer; the busy timeout makes a writer wait instead of failing;
    // NORMAL sync is durable across application crashes in WAL mode and only risks the last commits on power loss.
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)}`);
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("synchronous = NORMAL");
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = new Kysely<Database>({
    dialect: new StorageFaultsDialect(new ImmediateTransactionsDialect({ database: withStatementCache(sqlite) }, sqlite), sqliteFault, options.faults),
    ...(options.onQuery === undefined ? {} : { log: queryTimingLog(options.onQuery) }),
  });
  let appliedMigrations: string[];
  try {
    appliedMigrations = await migrateToLatest(db, { hashDeviceFingerprint: options.hashDeviceFingerprint });
  } catch (error) {
    await db.destroy();
    throw storageFaultCause(error);
  }
  let checkpoint: BackgroundCheckpoint | null = null;
  if (options.backgroundCheckpoint === true && options.filename !== ":memory:") {
    try {
      checkpoint = await startBackgroundCheckpoint(sqlite, options.filename);
    } catch (error) {
      // Asked for and not running is a configuration problem: said at start-up, not discovered in the latencies.
      await db.destroy();
      throw new Error(`the SQLite background checkpoint could not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  return {
    stores: createKyselyStores(db, "sqlite"),
    db,
    appliedMigrations,
    purgeExpired: (now, retention) => purgeExpired(db, now, retention),
    ping: () => pingDatabase(db),
    close: async () => {
      await checkpoint?.stop();
      await db.destroy();
    },
  };
}

/**
 * The database holds password hashes, phone numbers and the audit trail: a file this call creates is
 * readable by its owner only (0600; SQLite gives its -wal and -shm files the same mode), and so is a
 * directory it creates for it (0700). An existing file or directory keeps the mode its operator chose.
 */
function createPrivately(filename: string): void {
  const directory = dirname(filename);
  if (mkdirSync(directory, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(directory, 0o700);
  let fd: number;
  try {
    fd = openSync(filename, "wx", 0o600);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") return;
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}
