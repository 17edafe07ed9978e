import { resolve } from "node:path";
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
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

function sqliteFilename(databaseUrl: string): string {
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

/** How long requests may wait on the database, and who hears of its faults (see `ServerConfig.databaseTimeouts`). */
export interface DatabaseFaultOptions {
  readonly statementTimeoutMs?: number | undefined;
  readonly connectTimeoutMs?: number | undefined;
  readonly faults?: StorageFaultObserver | undefined;
}

/** A plain path or a `file:` URL is SQLite; `postgres://` / `postgresql://` is PostgreSQL. Migrations run here. */
export async function openStorage(
  databaseUrl: string,
  onQuery?: QueryTimingHook,
  sqliteBackgroundCheckpoint = false,
  database: DatabaseFaultOptions = {},
): Promise<OpenStorage> {
  const { statementTimeoutMs, connectTimeoutMs, faults } = database;
  if (isPostgresUrl(databaseUrl)) {
    // Loaded only when selected, so an SQLite install never loads the PostgreSQL driver.
    const { openPostgresStores } = await import("@gatehouse/adapters-postgres");
    const pg = await openPostgresStores({ connectionString: databaseUrl, onQuery, faults, statementTimeoutMs, connectTimeoutMs });
    return { stores: pg.stores, kind: "postgres", applied: pg.applied, purgeExpired: pg.purgeExpired, ping: pg.ping, close: pg.close };
  }
  const sqlite = await openSqliteStores({
    filename: sqliteFilename(databaseUrl),
    onQuery,
    faults,
    busyTimeoutMs: statementTimeoutMs,
    backgroundCheckpoint: sqliteBackgroundCheckpoint,
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
