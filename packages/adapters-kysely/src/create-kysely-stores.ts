import { GatehouseError, takenAuditIdFailsTransaction, type Stores } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { createAuditRepository } from "./audit-repository.ts";
import { createBatchedBrowserAccess } from "./browser-access-batch.ts";
import { createBrowserAccessRepository } from "./browser-access-repository.ts";
import { createBrowserPolicyRepository } from "./browser-policy-repository.ts";
import { createChallengeRepository } from "./challenge-repository.ts";
import { createDeviceRepository } from "./device-repository.ts";
import type { SqlDialect } from "./dialect-differences.ts";
import { createIntentRepository } from "./intent-repository.ts";
import { createOrgRepository } from "./org-repository.ts";
import { createPreparedQueryCache, type PreparedQueryCache } from "./prepared-query.ts";
import { createRateLimiter } from "./rate-limiter.ts";
import { ridingKeyTaken } from "./riding-insert.ts";
import type { Database } from "./schema.ts";
import { createSessionRepository } from "./session-repository.ts";
import { createSmsTrafficRepository } from "./sms-traffic-repository.ts";
import { createSettingsRepository } from "./settings-repository.ts";
import { createSignInFactsRepository } from "./sign-in-facts-repository.ts";
import { createUserRepository } from "./user-repository.ts";

export interface KyselyStoresOptions {
  /**
   * Where the browser requests' one read goes outside a transaction, when not `db`: the PostgreSQL adapter's
   * pipelined connection (adapters-postgres, pipelined-reads.ts). Same schema, autocommit, no session state.
   */
  readonly browserAccessDb?: Kysely<Database>;
}

/**
 * Every core port over one kysely instance the caller owns (and destroys). The schema must be
 * migrated first (`migrateToLatest`). `dialect` selects the value encodings of `dialect-differences.ts`.
 * `transaction` runs a unit of work in one kysely transaction over repositories bound to it; the
 * dialect decides how it begins (the SQLite adapter begins IMMEDIATE).
 */
export function createKyselyStores(db: Kysely<Database>, dialect: SqlDialect, options: KyselyStoresOptions = {}): Stores {
  const cache = createPreparedQueryCache();
  return {
    ...repositoriesOver(db, dialect, cache),
    // A turn's browser reads share one statement on PostgreSQL; a transaction's stores keep the one-request form on its connection.
    ...(dialect === "postgres" ? { browserAccess: createBatchedBrowserAccess(options.browserAccessDb ?? db) } : {}),
    transaction: (work) =>
      db
        .transaction()
        .execute((trx) => {
          const tx: Stores = { ...repositoriesOver(trx, dialect, cache), transaction: (inner) => inner(tx) };
          return takenAuditIdFailsTransaction(tx, work);
        })
        .catch((error: unknown) => {
          // Audit events, challenges and sessions may ride with a later statement or the commit, which then reports their taken key.
          throw ridingKeyTaken(error) ? new GatehouseError("already_exists") : error;
        }),
  };
}

function repositoriesOver(db: Kysely<Database>, dialect: SqlDialect, cache: PreparedQueryCache): Omit<Stores, "transaction"> {
  const devices = createDeviceRepository(db, dialect, cache);
  const signInFacts = createSignInFactsRepository(db, dialect, cache, devices);
  return {
    users: createUserRepository(db, dialect, cache),
    orgs: createOrgRepository(db, cache),
    devices,
    challenges: createChallengeRepository(db, dialect, cache, signInFacts),
    intents: createIntentRepository(db),
    sessions: createSessionRepository(db, cache),
    settings: createSettingsRepository(db, dialect),
    browserPolicies: createBrowserPolicyRepository(db, cache),
    browserAccess: createBrowserAccessRepository(db, cache),
    signInFacts,
    rateLimiter: createRateLimiter(db, dialect),
    smsTraffic: createSmsTrafficRepository(db, cache),
    audit: createAuditRepository(db, cache),
  };
}
