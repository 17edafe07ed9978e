/**
 * @gatehouse/adapters-kysely: the one copy of Gatehouse's SQL, shared by the SQLite and
 * PostgreSQL adapters. They build the `Kysely<Database>`, run `migrateToLatest`, and call
 * `createKyselyStores(db, dialect)`.
 */
export { createKyselyStores } from "./create-kysely-stores.ts";
export { MIGRATION_NAMES, migrateToLatest, type MigrateOptions } from "./migrations.ts";
export type { OpenedStores } from "./opened-stores.ts";
export { purgeExpired, type PurgedCounts, type PurgeRetention } from "./purge-expired.ts";
export type { SqlDialect } from "./dialect-differences.ts";
export type { Database } from "./schema.ts";
export { pingDatabase, queryTimingLog, type QueryTiming, type QueryTimingHook } from "./query-timing.ts";
export {
  StorageFaultsDialect,
  STORAGE_RETRY_AFTER_SECONDS,
  storageFaultCause,
  type StorageFault,
  type StorageFaultClassifier,
  type StorageFaultObserver,
} from "./storage-faults.ts";
