/** @gatehouse/adapters-sqlite: Gatehouse's stores in one SQLite file (kysely + better-sqlite3). */
export { DEFAULT_BUSY_TIMEOUT_MS, openSqliteStores, type SqliteStores, type SqliteStoresOptions } from "./open-sqlite-stores.ts";
export { MIGRATION_NAMES } from "@gatehouse/adapters-kysely";
export type { QueryTiming, QueryTimingHook, StorageFault, StorageFaultObserver } from "@gatehouse/adapters-kysely";
export { backupSqliteFile } from "./backup.ts";
