import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { pingDatabase, purgeExpired, type PurgedCounts, type QueryTimingHook } from "@gatehouse/adapters-kysely";
import type { EpochMs, Stores } from "@gatehouse/core";

export interface OpenStorage {
  readonly stores: Stores;
  readonly kind: "sqlite" | "postgres";
  /** Migrations applied by this start (empty when the schema was current). */
  readonly applied: readonly string[];
  /** Deletes rows nothing can use any more (ended rate-limit windows, stale retired tokens, expired intents and challenges). */
  purgeExpired(now: EpochMs): Promise<PurgedCounts>;
  /** A cheap `select 1`: resolves while the database answers (the readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** A plain path or a `file:` URL is SQLite; `postgres://` / `postgresql://` is PostgreSQL. Migrations run here. */
export async function openStorage(databaseUrl: string, onQuery?: QueryTimingHook): Promise<OpenStorage> {
  if (isPostgresUrl(databaseUrl)) {
    // Loaded only when selected, so an SQLite install never loads the PostgreSQL driver.
    const { openPostgresStores } = await import("@gatehouse/adapters-postgres");
    const pg = await openPostgresStores({ connectionString: databaseUrl, onQuery });
    return { stores: pg.stores, kind: "postgres", applied: pg.applied, purgeExpired: (now) => purgeExpired(pg.db, now), ping: () => pingDatabase(pg.db), close: pg.close };
  }
  const filename = databaseUrl.startsWith("file:") ? fileURLToPath(new URL(databaseUrl, `file://${process.cwd()}/`)) : resolve(databaseUrl);
  const sqlite = await openSqliteStores({ filename, onQuery });
  return { stores: sqlite.stores, kind: "sqlite", applied: sqlite.appliedMigrations, purgeExpired: sqlite.purgeExpired, ping: () => pingDatabase(sqlite.db), close: sqlite.close };
}
