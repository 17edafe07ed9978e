/** @gatehouse/adapters-postgres: Gatehouse's stores in PostgreSQL (kysely + pg), shareable by several replicas. */
export { openPostgresStores, type PostgresStores, type PostgresStoresOptions, type StatementOptions } from "./open-postgres-stores.ts";
export { MIGRATION_LOCK_CLASS, migrationLockKeys } from "./migrate-under-lock.ts";
export { MIGRATION_NAMES } from "@gatehouse/adapters-kysely";
export type { QueryTiming, QueryTimingHook } from "@gatehouse/adapters-kysely";
