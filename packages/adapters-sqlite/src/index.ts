/** @gatehouse/adapters-sqlite: Gatehouse's stores in one SQLite file (kysely + better-sqlite3). */
export { openSqliteStores, type SqliteStores, type SqliteStoresOptions } from "./open-sqlite-stores.ts";
export { MIGRATION_NAMES } from "@gatehouse/adapters-kysely";
export type { QueryTiming, QueryTimingHook } from "@gatehouse/adapters-kysely";
export { backupSqliteFile } from "./backup.ts";
