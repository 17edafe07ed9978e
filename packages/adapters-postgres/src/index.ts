/** @gatehouse/adapters-postgres: Gatehouse's stores in PostgreSQL (kysely + pg), shareable by several replicas. */
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  openPostgresStores,
  type PostgresStores,
  type PostgresStoresOptions,
  type PostgresTimeouts,
  type StatementOptions,
} from "./open-postgres-stores.ts";
export { MIGRATION_LOCK_CLASS, migrationLockKeys } from "./migrate-under-lock.ts";
export { MIGRATION_NAMES } from "@gatehouse/adapters-kysely";
export type { QueryTiming, QueryTimingHook, StorageFault, StorageFaultObserver } from "@gatehouse/adapters-kysely";
