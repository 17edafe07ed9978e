import { createMemoryAuditStore } from "./memory-audit-store.ts";
import { createMemoryOidcStore } from "./memory-oidc-store.ts";
import { createMemorySmsTraffic } from "./memory-sms-traffic.ts";
import { createMemoryResourceServerStore, createMemorySigningKeyStore } from "./memory-token-stores.ts";
import { createMemoryTables, createSerialLock, serialised } from "./memory-transactions.ts";
import type { Stores } from "../ports.ts";
import { createBrowserPolicyStore } from "./memory-browser-policy-store.ts";
import { createChallengeStore } from "./memory-challenge-store.ts";
import { createExtensionSessionStore } from "./memory-extension-session-store.ts";
import { createDeviceStore } from "./memory-device-store.ts";
import { createEmailTokenStore } from "./memory-email-token-store.ts";
import { createIntentStore } from "./memory-intent-store.ts";
import { createInvitationStore } from "./memory-invitation-store.ts";
import { createOrgStore } from "./memory-org-store.ts";
import { createPasskeyStore } from "./memory-passkey-store.ts";
import { createRateLimiter } from "./memory-rate-limiter.ts";
import { createRecoveryCodeStore } from "./memory-recovery-code-store.ts";
import { createMemoryRiskStore } from "./memory-risk-store.ts";
import { createSessionStore } from "./memory-session-store.ts";
import { createSettingsStore } from "./memory-settings-store.ts";
import { createSignInFactsStore } from "./memory-sign-in-facts-store.ts";
import { createSignInNetworkStore } from "./memory-sign-in-network-store.ts";
import { createTotpStore } from "./memory-totp-store.ts";
import { createUserStore } from "./memory-user-store.ts";
import { createWebAuthnChallengeStore } from "./memory-webauthn-challenge-store.ts";

/**
 * Every port held in Maps, for unit tests and for trying Gatehouse without a database. It passes
 * the same contract suite as the SQL adapters. Each guarded mutation runs its check and its write
 * with no `await` in between, which on one event loop is as atomic as a guarded SQL statement.
 * Records are copied on the way in and out, so a caller can never edit stored state in place.
 * A transaction runs alone: every call from outside waits on one lock while it is open, and a
 * transaction that rejects restores the snapshot taken when it began.
 */
export function createMemoryStores(): Stores {
  const tables = createMemoryTables();
  const lock = createSerialLock();
  const orgs = createOrgStore(tables);
  const { store: sessions, deviceIds: sessionDeviceIds } = createSessionStore(tables);
  const browserPolicies = createBrowserPolicyStore(tables, orgs);
  const users = createUserStore(tables);
  const devices = createDeviceStore(tables, sessionDeviceIds);
  const settings = createSettingsStore(tables);
  const signInFacts = createSignInFactsStore(users, orgs, devices, settings);
  const audit = createMemoryAuditStore();
  tables.track(audit);
  const ports: Omit<Stores, "transaction"> = {
    users,
    orgs,
    devices,
    challenges: createChallengeStore(tables),
    intents: createIntentStore(tables),
    emailTokens: createEmailTokenStore(tables),
    invitations: createInvitationStore(tables),
    signInNetworks: createSignInNetworkStore(tables),
    totp: createTotpStore(tables),
    recoveryCodes: createRecoveryCodeStore(tables),
    passkeys: createPasskeyStore(tables),
    webauthnChallenges: createWebAuthnChallengeStore(tables),
    sessions,
    settings,
    browserPolicies,
    extensionSessions: createExtensionSessionStore(tables),
    signInFacts,
    rateLimiter: createRateLimiter(tables),
    smsTraffic: createMemorySmsTraffic(tables),
    audit: audit.store,
    signingKeys: createMemorySigningKeyStore(tables),
    resourceServers: createMemoryResourceServerStore(tables),
    risk: createMemoryRiskStore(tables),
    oidc: createMemoryOidcStore(tables),
  };
  const tx: Stores = { ...ports, transaction: (work) => work(tx) };
  return {
    users: serialised(ports.users, lock),
    orgs: serialised(ports.orgs, lock),
    devices: serialised(ports.devices, lock),
    challenges: serialised(ports.challenges, lock),
    intents: serialised(ports.intents, lock),
    emailTokens: serialised(ports.emailTokens, lock),
    invitations: serialised(ports.invitations, lock),
    signInNetworks: serialised(ports.signInNetworks, lock),
    totp: serialised(ports.totp, lock),
    recoveryCodes: serialised(ports.recoveryCodes, lock),
    passkeys: serialised(ports.passkeys, lock),
    webauthnChallenges: serialised(ports.webauthnChallenges, lock),
    sessions: serialised(ports.sessions, lock),
    settings: serialised(ports.settings, lock),
    browserPolicies: serialised(ports.browserPolicies, lock),
    extensionSessions: serialised(ports.extensionSessions, lock),
    signInFacts: serialised(ports.signInFacts, lock),
    rateLimiter: serialised(ports.rateLimiter, lock),
    smsTraffic: serialised(ports.smsTraffic, lock),
    audit: serialised(ports.audit, lock),
    signingKeys: serialised(ports.signingKeys, lock),
    resourceServers: serialised(ports.resourceServers, lock),
    risk: serialised(ports.risk, lock),
    oidc: serialised(ports.oidc, lock),
    transaction: (work) =>
      lock.run(async () => {
        const restore = tables.snapshot();
        try {
          return await work(tx);
        } catch (error) {
          restore();
          throw error;
        }
      }),
  };
}
