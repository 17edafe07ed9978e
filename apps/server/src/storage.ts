import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqliteStores, type QueryTimingHook, type SqliteStores, type StorageFaultObserver } from "@gatehouse/adapters-sqlite";
import type { EpochMs, Stores } from "@gatehouse/core";

/** Rows deleted per table; both adapters report the same counts. */
export type PurgedCounts = Awaited<ReturnType<SqliteStores["purgeExpired"]>>;

export interface OpenStorage {
  readonly stores: Stores;
  readonly kind: "sqlite" | "postgres";
  /** Migrations applied by this start (empty when the schema was current). */
  readonly applied: readonly string[];
  /** Deletes rows nothing can use any more (ended rate-limit windows, stale retired tokens, expired intents and challenges) and audit events past their retention. */
  purgeExpired(now: EpochMs, retention: { readonly auditRetentionMs: number }): Promise<PurgedCounts>;
  /** A cheap `select 1`: resolves while the database answers (the readiness probe). */
  ping(): Promise<void>;
  /**
   * A cheap committed write (the readiness probe's second half): rejects while writes fail (disk full,
   * read-only file or replica, lost write lock) even though reads still answer. One single-row upsert
   * of this process's own rate-limit row, `readiness:<host>:<pid>`: no replica waits on another's row,
   * nothing accumulates (the row holds one unit of a 1 ms window), and the purge job deletes the rows
   * of processes that are gone. No table of its own, so no migration.
   */
  probeWrite(now: EpochMs): Promise<void>;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function sqliteFilename(databaseUrl: string): string {
  return databaseUrl.startsWith("file:") ? fileURLToPath(new URL(databaseUrl, `file://${process.cwd()}/`)) : resolve(databaseUrl);
}

/** Names the database for an operator: `sqlite <absolute path>` or `postgres <URL>` with any password masked. */
export function describeDatabase(databaseUrl: string): string {
  if (!isPostgresUrl(databaseUrl)) return `sqlite ${sqliteFilename(databaseUrl)}`;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return "postgres (unparsable URL)";
  }
  if (url.password !== "") url.password = "***";
  if (url.searchParams.has("password")) url.searchParams.set("password", "***");
  return `postgres ${url.toString()}`;
}

/** How long requests may wait on the database, who hears of its faults, and whether a missing SQLite directory may be created. */
export interface DatabaseOpenOptions {
  readonly statementTimeoutMs?: number | undefined;
  readonly connectTimeoutMs?: number | undefined;
  readonly faults?: StorageFaultObserver | undefined;
  /** Create an SQLite file's missing directory (`gatehouse migrate`, `DATABASE_CREATE`); otherwise it is refused. */
  readonly createDirectory?: boolean | undefined;
  /** How the 0014 migration hashes the device fingerprints stored before it (see `MigrateOptions.hashDeviceFingerprint`). */
  readonly hashDeviceFingerprint?: ((fingerprint: string) => string) | undefined;
}

/**
 * A plain path or a `file:` URL is SQLite; `postgres://` / `postgresql://` is PostgreSQL. Migrations run here.
 * An SQLite file whose directory does not exist is refused unless `createDirectory` (a mistyped path
 * would otherwise start on a new, empty database), and every error names the database it concerns.
 */
export async function openStorage(
  databaseUrl: string,
  onQuery?: QueryTimingHook,
  sqliteBackgroundCheckpoint = false,
  options: DatabaseOpenOptions = {},
): Promise<OpenStorage> {
  const database = describeDatabase(databaseUrl);
  if (!isPostgresUrl(databaseUrl) && options.createDirectory !== true) {
    const directory = dirname(sqliteFilename(databaseUrl));
    if (!existsSync(directory)) {
      throw new Error(
        `the SQLite database's directory ${directory} does not exist (DATABASE_URL ${JSON.stringify(databaseUrl)}): ` +
          "check the path, or let `gatehouse migrate` (or DATABASE_CREATE=true) create it",
      );
    }
  }
  try {
    return withWriteProbe(await openDatabase(databaseUrl, onQuery, sqliteBackgroundCheckpoint, options));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot open the database (${database}): ${message}`, { cause: error });
  }
}

function withWriteProbe(storage: Omit<OpenStorage, "probeWrite">): OpenStorage {
  const key = `readiness:${hostname()}:${process.pid}`;
  return {
    ...storage,
    probeWrite: async (now) => {
      await storage.stores.rateLimiter.consume(key, 1, 1, now);
    },
  };
}

async function openDatabase(
  databaseUrl: string,
  onQuery: QueryTimingHook | undefined,
  sqliteBackgroundCheckpoint: boolean,
  options: DatabaseOpenOptions,
): Promise<Omit<OpenStorage, "probeWrite">> {
  const { statementTimeoutMs, connectTimeoutMs, faults, hashDeviceFingerprint } = options;
  if (isPostgresUrl(databaseUrl)) {
    // Loaded only when selected, so an SQLite install never loads the PostgreSQL driver.
    const { openPostgresStores } = await import("@gatehouse/adapters-postgres");
    const pg = await openPostgresStores({ connectionString: databaseUrl, onQuery, faults, statementTimeoutMs, connectTimeoutMs, hashDeviceFingerprint });
    return { stores: pg.stores, kind: "postgres", applied: pg.applied, purgeExpired: pg.purgeExpired, ping: pg.ping, close: pg.close };
  }
  const sqlite = await openSqliteStores({
    filename: sqliteFilename(databaseUrl),
    onQuery,
    faults,
    busyTimeoutMs: statementTimeoutMs,
    backgroundCheckpoint: sqliteBackgroundCheckpoint,
    hashDeviceFingerprint,
  });
  return {
    stores: sqlite.stores,
    kind: "sqlite",
    applied: sqlite.appliedMigrations,
    purgeExpired: sqlite.purgeExpired,
    ping: sqlite.ping,
    close: sqlite.close,
  };
}
