import type { EpochMs, Stores } from "@gatehouse/core";
import type { Kysely } from "kysely";
import type { PurgedCounts, PurgeRetention } from "./purge-expired.ts";
import type { Database } from "./schema.ts";

/** What opening a database gives, on SQLite and on PostgreSQL: the stores, and what an operator runs beside them. */
export interface OpenedStores {
  readonly stores: Stores;
  readonly db: Kysely<Database>;
  /** Deletes dead rows (ended rate-limit windows, stale retired tokens, old intents and challenges) and audit events past their retention; see `purgeExpired`. */
  purgeExpired(now: EpochMs, retention: PurgeRetention): Promise<PurgedCounts>;
  /** A cheap `select 1`: rejects while the database is unreachable (readiness probes). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
