import type { Stores } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { createAuditRepository } from "./audit-repository.ts";
import { createBrowserPolicyRepository } from "./browser-policy-repository.ts";
import { createChallengeRepository } from "./challenge-repository.ts";
import { createDeviceRepository } from "./device-repository.ts";
import { createEmailTokenRepository } from "./email-token-repository.ts";
import type { SqlDialect } from "./dialect-differences.ts";
import { createExtensionSessionRepository } from "./extension-session-repository.ts";
import { createIntentRepository } from "./intent-repository.ts";
import { createInvitationRepository } from "./invitation-repository.ts";
import { createOrgRepository } from "./org-repository.ts";
import { createPasskeyRepository } from "./passkey-repository.ts";
import { createPreparedQueryCache, type PreparedQueryCache } from "./prepared-query.ts";
import { createRateLimiter } from "./rate-limiter.ts";
import { createRecoveryCodeRepository } from "./recovery-code-repository.ts";
import { createRiskRepository } from "./risk-repository.ts";
import type { Database } from "./schema.ts";
import { createOidcRepository } from "./oidc-repository.ts";
import { createSessionRepository } from "./session-repository.ts";
import { createSmsTrafficRepository } from "./sms-traffic-repository.ts";
import { createSignInNetworkRepository } from "./sign-in-network-repository.ts";
import { createSettingsRepository } from "./settings-repository.ts";
import { createSignInFactsRepository } from "./sign-in-facts-repository.ts";
import { createResourceServerRepository, createSigningKeyRepository } from "./token-repositories.ts";
import { createTotpRepository } from "./totp-repository.ts";
import { createUserRepository } from "./user-repository.ts";
import { createWebAuthnChallengeRepository } from "./webauthn-challenge-repository.ts";

/**
 * Every core port over one kysely instance the caller owns (and destroys). The schema must be
 * migrated first (`migrateToLatest`). `dialect` selects the value encodings of `dialect-differences.ts`.
 * `transaction` runs a unit of work in one kysely transaction over repositories bound to it; the
 * dialect decides how it begins (the SQLite adapter begins IMMEDIATE).
 */
export function createKyselyStores(db: Kysely<Database>, dialect: SqlDialect): Stores {
  const cache = createPreparedQueryCache();
  return {
    ...repositoriesOver(db, dialect, cache),
    transaction: (work) =>
      db.transaction().execute((trx) => {
        const tx: Stores = { ...repositoriesOver(trx, dialect, cache), transaction: (inner) => inner(tx) };
        return work(tx);
      }),
  };
}

function repositoriesOver(db: Kysely<Database>, dialect: SqlDialect, cache: PreparedQueryCache): Omit<Stores, "transaction"> {
  return {
    users: createUserRepository(db, dialect, cache),
    orgs: createOrgRepository(db, cache),
    devices: createDeviceRepository(db, dialect, cache),
    challenges: createChallengeRepository(db, dialect, cache),
    intents: createIntentRepository(db),
    emailTokens: createEmailTokenRepository(db),
    invitations: createInvitationRepository(db),
    signInNetworks: createSignInNetworkRepository(db),
    totp: createTotpRepository(db),
    recoveryCodes: createRecoveryCodeRepository(db),
    passkeys: createPasskeyRepository(db, dialect),
    webauthnChallenges: createWebAuthnChallengeRepository(db),
    sessions: createSessionRepository(db, cache),
    settings: createSettingsRepository(db, dialect),
    browserPolicies: createBrowserPolicyRepository(db, cache),
    extensionSessions: createExtensionSessionRepository(db),
    signInFacts: createSignInFactsRepository(db, cache),
    rateLimiter: createRateLimiter(db, dialect),
    smsTraffic: createSmsTrafficRepository(db, cache),
    audit: createAuditRepository(db, cache),
    signingKeys: createSigningKeyRepository(db),
    resourceServers: createResourceServerRepository(db),
    risk: createRiskRepository(db, cache),
    oidc: createOidcRepository(db),
  };
}
