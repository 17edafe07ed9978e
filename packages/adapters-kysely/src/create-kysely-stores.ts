import type { Stores } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { createBrowserAccessRepository } from "./browser-access-repository.ts";
import { createBrowserPolicyRepository } from "./browser-policy-repository.ts";
import { createChallengeRepository } from "./challenge-repository.ts";
import { createDeviceRepository } from "./device-repository.ts";
import type { SqlDialect } from "./dialect-differences.ts";
import { createIntentRepository } from "./intent-repository.ts";
import { createOrgRepository } from "./org-repository.ts";
import { createRateLimiter } from "./rate-limiter.ts";
import type { Database } from "./schema.ts";
import { createSessionRepository } from "./session-repository.ts";
import { createSettingsRepository } from "./settings-repository.ts";
import { createUserRepository } from "./user-repository.ts";

/**
 * Every core port over one kysely instance the caller owns (and destroys). The schema must be
 * migrated first (`migrateToLatest`). `dialect` selects the value encodings of `dialect-differences.ts`.
 */
export function createKyselyStores(db: Kysely<Database>, dialect: SqlDialect): Stores {
  return {
    users: createUserRepository(db, dialect),
    orgs: createOrgRepository(db),
    devices: createDeviceRepository(db, dialect),
    challenges: createChallengeRepository(db),
    intents: createIntentRepository(db),
    sessions: createSessionRepository(db),
    settings: createSettingsRepository(db, dialect),
    browserPolicies: createBrowserPolicyRepository(db),
    browserAccess: createBrowserAccessRepository(db),
    rateLimiter: createRateLimiter(db, dialect),
  };
}
