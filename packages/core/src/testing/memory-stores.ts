import { GatehouseError } from "../errors.ts";
import { createMemoryAuditStore } from "./memory-audit-store.ts";
import { createMemoryOidcStore } from "./memory-oidc-store.ts";
import { createMemorySmsTraffic } from "./memory-sms-traffic.ts";
import { createMemoryResourceServerStore, createMemorySigningKeyStore } from "./memory-token-stores.ts";
import { createMemoryTables, createSerialLock, serialised, type MemoryTables } from "./memory-transactions.ts";
import { checkRateLimitRequests, slidingLogRetryAt, type LoggedUnit } from "../sliding-log.ts";
import type {
  Device,
  EmailToken,
  EpochMs,
  Invitation,
  MfaChallenge,
  MfaIntent,
  Membership,
  Org,
  OrgMfaSettings,
  PlatformSettings,
  RecoveryCode,
  Session,
  TotpFactor,
  WebAuthnChallenge,
  WebAuthnFactor,
  User,
} from "../model.ts";
import type {
  BrowserPolicyStore,
  ChallengeStore,
  DeviceStore,
  EmailTokenStore,
  FactorStore,
  IntentStore,
  InvitationStore,
  OrgStore,
  RateLimitDecision,
  RateLimiter,
  RateLimitRequest,
  SessionStore,
  SettingsStore,
  SignInFactsStore,
  Stores,
  UserStore,
  VersionedBrowserPolicy,
} from "../ports.ts";

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
  const sessions = createSessionStore(tables);
  const browserPolicies = createBrowserPolicyStore(tables, orgs);
  const users = createUserStore(tables);
  const devices = createDeviceStore(tables);
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
    factors: createFactorStore(tables),
    sessions,
    settings,
    browserPolicies,
    signInFacts,
    rateLimiter: createRateLimiter(tables),
    smsTraffic: createMemorySmsTraffic(tables),
    audit: audit.store,
    signingKeys: createMemorySigningKeyStore(tables),
    resourceServers: createMemoryResourceServerStore(tables),
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
    factors: serialised(ports.factors, lock),
    sessions: serialised(ports.sessions, lock),
    settings: serialised(ports.settings, lock),
    browserPolicies: serialised(ports.browserPolicies, lock),
    signInFacts: serialised(ports.signInFacts, lock),
    rateLimiter: serialised(ports.rateLimiter, lock),
    smsTraffic: serialised(ports.smsTraffic, lock),
    audit: serialised(ports.audit, lock),
    signingKeys: serialised(ports.signingKeys, lock),
    resourceServers: serialised(ports.resourceServers, lock),
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

function copyOrNull<T extends object>(record: T | undefined): T | null {
  return record === undefined ? null : { ...record };
}

/** Composite Map keys: JSON keeps ("a:b", "c") and ("a", "b:c") apart. */
function keyOf(...parts: readonly (string | number)[]): string {
  return JSON.stringify(parts);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a user's record in `orgId` with `id` is reached by an eviction of `scopeOrgId` (undefined: every org) keeping `keepId`. */
function inScope(orgId: string, id: string, scopeOrgId: string | undefined, keepId: string | undefined): boolean {
  return (scopeOrgId === undefined || orgId === scopeOrgId) && id !== keepId;
}

function alreadyExists(): GatehouseError {
  return new GatehouseError("already_exists");
}

function createUserStore(tables: MemoryTables): UserStore {
  const users = tables.map<string, User>();
  const findByEmail = (email: string) => [...users.values()].find((user) => user.email === email);
  return {
    async create(user) {
      if (users.has(user.id) || findByEmail(user.email) !== undefined) throw alreadyExists();
      users.set(user.id, { ...user, disabledAt: user.disabledAt ?? null });
    },
    async findById(id) {
      return copyOrNull(users.get(id));
    },
    async findByEmail(email) {
      return copyOrNull(findByEmail(email));
    },
    async list() {
      return [...users.values()].sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id)).map((user) => ({ ...user }));
    },
    async clearPhone(userId) {
      const user = users.get(userId);
      if (user === undefined || (user.phone === null && !user.phoneVerified)) return false;
      users.set(userId, { ...user, phone: null, phoneVerified: false });
      return true;
    },
    async setVerifiedPhone(userId, phone) {
      const user = users.get(userId);
      if (user === undefined || user.phoneVerified) return false;
      users.set(userId, { ...user, phone, phoneVerified: true });
      return true;
    },
    async replacePasswordHash(userId, expectedHash, newHash) {
      const user = users.get(userId);
      if (user === undefined || user.passwordHash !== expectedHash) return false;
      users.set(userId, { ...user, passwordHash: newHash });
      return true;
    },
    async setDisabled(userId, disabledAt) {
      const user = users.get(userId);
      if (user === undefined || (user.disabledAt != null) === (disabledAt !== null)) return false;
      users.set(userId, { ...user, disabledAt });
      return true;
    },
    async setPasswordHash(userId, newHash) {
      const user = users.get(userId);
      if (user === undefined) return false;
      users.set(userId, { ...user, passwordHash: newHash });
      return true;
    },
    async markEmailVerified(userId, now) {
      const user = users.get(userId);
      if (user === undefined || user.emailVerifiedAt !== null) return false;
      users.set(userId, { ...user, emailVerifiedAt: now });
      return true;
    },
    async reclaimUnverified(userId, newHash, now) {
      const user = users.get(userId);
      if (user === undefined || user.emailVerifiedAt !== null) return false;
      users.set(userId, { ...user, passwordHash: newHash, displayName: "", phone: null, phoneVerified: false, emailVerifiedAt: now });
      return true;
    },
  };
}

function createOrgStore(tables: MemoryTables): OrgStore {
  const orgs = tables.map<string, Org>();
  const memberships = tables.map<string, Membership>();
  const findBySlug = (slug: string): Org | undefined => [...orgs.values()].find((org) => org.slug === slug);
  return {
    async create(org) {
      if (orgs.has(org.id)) throw alreadyExists();
      if (org.slug !== undefined && findBySlug(org.slug) !== undefined) throw alreadyExists();
      orgs.set(org.id, { ...org });
    },
    async findById(id) {
      return copyOrNull(orgs.get(id));
    },
    async findBySlug(slug) {
      return copyOrNull(findBySlug(slug));
    },
    async putMembership(membership) {
      memberships.set(keyOf(membership.orgId, membership.userId), { ...membership });
    },
    async removeMembership(orgId, userId) {
      return memberships.delete(keyOf(orgId, userId));
    },
    async findMembership(orgId, userId) {
      return copyOrNull(memberships.get(keyOf(orgId, userId)));
    },
    async list() {
      return [...orgs.values()].sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id)).map((org) => ({ ...org }));
    },
    async listMemberships(orgId) {
      return [...memberships.values()]
        .filter((m) => m.orgId === orgId)
        .sort((a, b) => compareText(a.userId, b.userId))
        .map((m) => ({ ...m }));
    },
    async listMembershipsOfUser(userId) {
      return [...memberships.values()]
        .filter((m) => m.userId === userId)
        .sort((a, b) => compareText(a.orgId, b.orgId))
        .map((m) => ({ ...m }));
    },
  };
}

function createDeviceStore(tables: MemoryTables): DeviceStore {
  const devices = tables.map<string, Device>();
  const update = (deviceId: string, change: Partial<Device>): boolean => {
    const device = devices.get(deviceId);
    if (device === undefined) return false;
    devices.set(deviceId, { ...device, ...change });
    return true;
  };
  return {
    async getOrCreate(candidate) {
      const existing = [...devices.values()].find(
        (device) => device.userId === candidate.userId && device.orgId === candidate.orgId && device.fingerprint === candidate.fingerprint,
      );
      if (existing !== undefined) {
        const seen = { ...existing, lastSeenAt: candidate.lastSeenAt };
        devices.set(seen.id, seen);
        return { device: { ...seen }, created: false };
      }
      if (devices.has(candidate.id)) throw alreadyExists();
      devices.set(candidate.id, { ...candidate });
      return { device: { ...candidate }, created: true };
    },
    async findById(id) {
      return copyOrNull(devices.get(id));
    },
    async listByUser(orgId, userId) {
      return [...devices.values()]
        .filter((device) => device.orgId === orgId && device.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((device) => ({ ...device }));
    },
    async markTrusted(deviceId, trustedUntil) {
      return update(deviceId, { trusted: true, trustedUntil, trustRevokedAt: null });
    },
    async revokeTrust(deviceId, now) {
      return update(deviceId, { trusted: false, trustedUntil: null, trustRevokedAt: now });
    },
    async evictByUser(userId, now, scope = {}) {
      let revoked = 0;
      for (const device of devices.values()) {
        if (device.userId !== userId || !inScope(device.orgId, device.id, scope.orgId, scope.keepDeviceId)) continue;
        const trustedNow = device.trusted && device.trustedUntil !== null && device.trustedUntil > now;
        update(device.id, { sessionIssuedAt: null, ...(trustedNow ? { trusted: false, trustedUntil: null, trustRevokedAt: now } : {}) });
        if (trustedNow) revoked++;
      }
      return revoked;
    },
    async findWithSession(userId, fingerprint) {
      return copyOrNull(
        [...devices.values()].find((device) => device.userId === userId && device.fingerprint === fingerprint && device.sessionIssuedAt !== null),
      );
    },
    async markSessionIssued(deviceId, now, trustedUntil) {
      const device = devices.get(deviceId);
      if (device === undefined) return;
      const trust = trustedUntil === undefined ? {} : { trusted: true, trustedUntil, trustRevokedAt: null };
      devices.set(deviceId, { ...device, sessionIssuedAt: device.sessionIssuedAt ?? now, ...trust });
    },
  };
}

function deleteWhere<T>(records: Map<string, T>, matches: (record: T) => boolean): number {
  let deleted = 0;
  for (const [id, record] of records) {
    if (matches(record)) {
      records.delete(id);
      deleted++;
    }
  }
  return deleted;
}

function createChallengeStore(tables: MemoryTables): ChallengeStore {
  const challenges = tables.map<string, MfaChallenge>();
  return {
    async create(challenge) {
      if (challenges.has(challenge.id)) throw alreadyExists();
      challenges.set(challenge.id, { ...challenge });
    },
    async findById(id) {
      return copyOrNull(challenges.get(id));
    },
    async claimAttempt(id, maxAttempts, now) {
      const challenge = challenges.get(id);
      if (challenge === undefined || challenge.attempts >= maxAttempts || challenge.expiresAt <= now) return null;
      const claimed = { ...challenge, attempts: challenge.attempts + 1 };
      challenges.set(id, claimed);
      return { ...claimed };
    },
    async releaseAttempt(id) {
      const challenge = challenges.get(id);
      if (challenge !== undefined && challenge.attempts > 0) challenges.set(id, { ...challenge, attempts: challenge.attempts - 1 });
    },
    async consume(id) {
      const challenge = challenges.get(id);
      challenges.delete(id);
      return copyOrNull(challenge);
    },
    async delete(id) {
      return challenges.delete(id);
    },
    async deleteByUser(userId) {
      return deleteWhere(challenges, (challenge) => challenge.userId === userId);
    },
  };
}

function createIntentStore(tables: MemoryTables): IntentStore {
  const intents = tables.map<string, MfaIntent>();
  return {
    async create(intent) {
      if (intents.has(intent.id)) throw alreadyExists();
      intents.set(intent.id, { ...intent });
    },
    async consume(id, now) {
      const intent = intents.get(id);
      intents.delete(id);
      return intent !== undefined && intent.expiresAt > now ? { ...intent } : null;
    },
    async deleteByUser(userId) {
      return deleteWhere(intents, (intent) => intent.userId === userId);
    },
  };
}

function createEmailTokenStore(tables: MemoryTables): EmailTokenStore {
  const tokens = tables.map<string, EmailToken>();
  return {
    async create(token) {
      if (tokens.has(token.tokenHash)) throw alreadyExists();
      tokens.set(token.tokenHash, { ...token });
    },
    async find(tokenHash, purpose, now) {
      const token = tokens.get(tokenHash);
      return token !== undefined && token.purpose === purpose && token.expiresAt > now ? { ...token } : null;
    },
    async consume(tokenHash, purpose, now) {
      const token = tokens.get(tokenHash);
      if (token === undefined || token.purpose !== purpose) return null;
      tokens.delete(tokenHash);
      return token.expiresAt > now ? { ...token } : null;
    },
    async deleteByUser(userId, purpose) {
      return deleteWhere(tokens, (token) => token.userId === userId && token.purpose === purpose);
    },
  };
}

function createFactorStore(tables: MemoryTables): FactorStore {
  const totp = tables.map<string, TotpFactor>();
  const recoveryCodes = tables.map<string, RecoveryCode>();
  const passkeys = tables.map<string, WebAuthnFactor>();
  const webauthnChallenges = tables.map<string, WebAuthnChallenge>();
  const codesOf = (userId: string) => [...recoveryCodes.values()].filter((code) => code.userId === userId).length;
  return {
    async createTotp(factor) {
      if (totp.has(factor.id)) throw alreadyExists();
      totp.set(factor.id, { ...factor });
    },
    async findTotp(id) {
      return copyOrNull(totp.get(id));
    },
    async listTotp(userId) {
      return [...totp.values()]
        .filter((factor) => factor.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((factor) => ({ ...factor }));
    },
    async confirmTotp(id, now) {
      const factor = totp.get(id);
      if (factor === undefined || factor.confirmedAt !== null) return false;
      totp.set(id, { ...factor, confirmedAt: now });
      return true;
    },
    async acceptTotpStep(id, step, now) {
      const factor = totp.get(id);
      if (factor === undefined || (factor.lastStep !== null && factor.lastStep >= step)) return false;
      totp.set(id, { ...factor, lastStep: step, lastUsedAt: now });
      return true;
    },
    async deleteTotp(userId, id) {
      if (totp.get(id)?.userId !== userId) return false;
      return totp.delete(id);
    },
    async replaceRecoveryCodes(userId, codes) {
      deleteWhere(recoveryCodes, (code) => code.userId === userId);
      for (const code of codes) recoveryCodes.set(keyOf(userId, code.codeHash), { ...code, userId });
    },
    async consumeRecoveryCode(userId, codeHash) {
      if (!recoveryCodes.delete(keyOf(userId, codeHash))) return null;
      return codesOf(userId);
    },
    async countRecoveryCodes(userId) {
      return codesOf(userId);
    },
    async createWebAuthn(factor) {
      if (passkeys.has(factor.id) || [...passkeys.values()].some((held) => held.credentialId === factor.credentialId)) throw alreadyExists();
      passkeys.set(factor.id, { ...factor, transports: [...factor.transports] });
    },
    async listWebAuthn(userId) {
      return [...passkeys.values()]
        .filter((factor) => factor.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((factor) => ({ ...factor }));
    },
    async findWebAuthnByCredentialId(credentialId) {
      return copyOrNull([...passkeys.values()].find((factor) => factor.credentialId === credentialId));
    },
    async acceptWebAuthnCounter(id, counter, backedUp, now) {
      const factor = passkeys.get(id);
      if (factor === undefined || !(factor.counter < counter || (factor.counter === 0 && counter === 0))) return false;
      passkeys.set(id, { ...factor, counter, backedUp, lastUsedAt: now });
      return true;
    },
    async deleteWebAuthn(userId, id) {
      if (passkeys.get(id)?.userId !== userId) return false;
      return passkeys.delete(id);
    },
    async putWebAuthnChallenge(challenge) {
      webauthnChallenges.set(challenge.id, { ...challenge });
    },
    async consumeWebAuthnChallenge(id, ceremony, now) {
      const challenge = webauthnChallenges.get(id);
      if (challenge === undefined || challenge.ceremony !== ceremony) return null;
      webauthnChallenges.delete(id);
      return challenge.expiresAt > now ? { ...challenge } : null;
    },
    async deleteAllByUser(userId) {
      deleteWhere(webauthnChallenges, (challenge) => challenge.userId === userId);
      return (
        deleteWhere(totp, (factor) => factor.userId === userId) +
        deleteWhere(passkeys, (factor) => factor.userId === userId) +
        deleteWhere(recoveryCodes, (code) => code.userId === userId)
      );
    },
  };
}

function createInvitationStore(tables: MemoryTables): InvitationStore {
  const invitations = tables.map<string, Invitation>();
  const byTokenHash = (tokenHash: string) => [...invitations.values()].find((invitation) => invitation.tokenHash === tokenHash);
  return {
    async put(invitation) {
      const replaced = [...invitations.values()].find((other) => other.orgId === invitation.orgId && other.email === invitation.email);
      const taken = (other: Invitation | undefined) => other !== undefined && other.id !== replaced?.id;
      if (taken(invitations.get(invitation.id)) || taken(byTokenHash(invitation.tokenHash))) throw alreadyExists();
      if (replaced !== undefined) invitations.delete(replaced.id);
      invitations.set(invitation.id, { ...invitation });
    },
    async findByTokenHash(tokenHash, now) {
      const invitation = byTokenHash(tokenHash);
      return invitation !== undefined && invitation.expiresAt > now ? { ...invitation } : null;
    },
    async consume(tokenHash, now) {
      const invitation = byTokenHash(tokenHash);
      if (invitation === undefined) return null;
      invitations.delete(invitation.id);
      return invitation.expiresAt > now ? { ...invitation } : null;
    },
    async listByOrg(orgId, now) {
      return [...invitations.values()]
        .filter((invitation) => invitation.orgId === orgId && invitation.expiresAt > now)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((invitation) => ({ ...invitation }));
    },
    async delete(orgId, invitationId) {
      const invitation = invitations.get(invitationId);
      return invitation !== undefined && invitation.orgId === orgId && invitations.delete(invitationId);
    },
  };
}

interface RetiredRefreshToken {
  readonly sessionId: string;
  /** Reuse is detected until the token that replaced this one expires, as in the SQL adapters. */
  readonly expiresAt: EpochMs;
  /** The refresh token hash that replaced this one: a replay is answered only while it is current. */
  readonly successorHash: string;
  /** Until when a replay gets the sealed successor instead of revoking. */
  readonly replayUntil: EpochMs;
  readonly sealedSuccessor: string | null;
}

function createSessionStore(tables: MemoryTables): SessionStore {
  const sessions = tables.map<string, Session>();
  const retired = tables.map<string, RetiredRefreshToken>();
  const tokenTaken = (accessTokenHash: string, refreshTokenHash: string, exceptId: string | null) =>
    [...sessions.values()].some(
      (session) => session.id !== exceptId && (session.accessTokenHash === accessTokenHash || session.refreshTokenHash === refreshTokenHash),
    );
  const revokeIfActive = (session: Session | undefined, now: EpochMs): boolean => {
    if (session === undefined || session.revokedAt !== null) return false;
    sessions.set(session.id, { ...session, revokedAt: now });
    return true;
  };
  return {
    async create(session) {
      if (sessions.has(session.id) || tokenTaken(session.accessTokenHash, session.refreshTokenHash, null)) throw alreadyExists();
      sessions.set(session.id, { ...session });
    },
    async findActiveByAccessTokenHash(accessTokenHash, now) {
      const session = [...sessions.values()].find((candidate) => candidate.accessTokenHash === accessTokenHash);
      return session !== undefined && session.revokedAt === null && session.accessExpiresAt > now ? { ...session } : null;
    },
    async listActiveByUser(orgId, userId, now) {
      return [...sessions.values()]
        .filter((s) => s.orgId === orgId && s.userId === userId && s.revokedAt === null && s.refreshExpiresAt > now && s.expiresAt > now)
        .sort((a, b) => b.createdAt - a.createdAt || compareText(b.id, a.id))
        .map((session) => ({ ...session, amr: [...session.amr] }));
    },
    async recordStepUp(sessionId, proof, next, now) {
      const session = sessions.get(sessionId);
      if (session === undefined || session.revokedAt !== null || session.expiresAt <= now) return null;
      if (tokenTaken(next.accessTokenHash, next.refreshTokenHash, sessionId)) throw alreadyExists();
      const stepped: Session = {
        ...session,
        ...next,
        accessExpiresAt: Math.min(next.accessExpiresAt, session.expiresAt),
        refreshExpiresAt: Math.min(next.refreshExpiresAt, session.expiresAt),
        amr: [...proof.amr],
        aal: proof.aal,
        mfaAt: proof.mfaAt,
      };
      sessions.set(sessionId, stepped);
      return { ...stepped };
    },
    async rotate(refreshTokenHash, next, now, replay) {
      const isLive = (session: Session | undefined): session is Session =>
        session !== undefined && session.revokedAt === null && session.refreshExpiresAt > now && session.expiresAt > now;
      const current = [...sessions.values()].find((session) => session.refreshTokenHash === refreshTokenHash);
      if (isLive(current)) {
        if (tokenTaken(next.accessTokenHash, next.refreshTokenHash, current.id)) throw alreadyExists();
        const rotated: Session = {
          ...current,
          ...next,
          accessExpiresAt: Math.min(next.accessExpiresAt, current.expiresAt),
          refreshExpiresAt: Math.min(next.refreshExpiresAt, current.expiresAt),
        };
        sessions.set(rotated.id, rotated);
        retired.set(refreshTokenHash, {
          sessionId: rotated.id,
          expiresAt: rotated.refreshExpiresAt,
          successorHash: next.refreshTokenHash,
          replayUntil: now + (replay?.reuseIntervalMs ?? 0),
          sealedSuccessor: replay?.sealedSuccessor ?? null,
        });
        return { kind: "rotated", session: { ...rotated } };
      }
      const reused = retired.get(refreshTokenHash);
      if (reused === undefined || reused.expiresAt <= now) return { kind: "invalid" };
      const session = sessions.get(reused.sessionId);
      if (session === undefined) return { kind: "invalid" };
      if (reused.replayUntil > now && reused.sealedSuccessor !== null && isLive(session) && session.refreshTokenHash === reused.successorHash) {
        return { kind: "replayed", session: { ...session }, sealedSuccessor: reused.sealedSuccessor };
      }
      revokeIfActive(session, now);
      return { kind: "reused", sessionId: session.id, userId: session.userId, orgId: session.orgId, deviceId: session.deviceId };
    },
    async revoke(sessionId, now) {
      return revokeIfActive(sessions.get(sessionId), now);
    },
    async revokeByUser(userId, now, scope = {}) {
      let revoked = 0;
      for (const session of sessions.values()) {
        const live = session.accessExpiresAt > now || session.refreshExpiresAt > now;
        const reached = session.userId === userId && inScope(session.orgId, session.id, scope.orgId, scope.keepSessionId);
        if (reached && live && revokeIfActive(session, now)) revoked++;
      }
      return revoked;
    },
    async revokeByDevice(deviceId, now) {
      let revoked = 0;
      for (const session of sessions.values()) {
        const live = session.accessExpiresAt > now || session.refreshExpiresAt > now;
        if (session.deviceId === deviceId && live && revokeIfActive(session, now)) revoked++;
      }
      return revoked;
    },
  };
}

function createSettingsStore(tables: MemoryTables): SettingsStore {
  const platform = tables.map<"platform", PlatformSettings>();
  const orgs = tables.map<string, OrgMfaSettings>();
  return {
    async getPlatform() {
      return copyOrNull(platform.get("platform"));
    },
    async putPlatform(settings) {
      platform.set("platform", { ...settings });
    },
    async getOrg(orgId) {
      return copyOrNull(orgs.get(orgId));
    },
    async putOrg(orgId, settings) {
      orgs.set(orgId, { ...settings });
    },
    async getForOrg(orgId) {
      return { platform: copyOrNull(platform.get("platform")), org: copyOrNull(orgs.get(orgId)) };
    },
  };
}

function createBrowserPolicyStore(tables: MemoryTables, orgs: OrgStore): BrowserPolicyStore {
  const policies = tables.map<string, VersionedBrowserPolicy>();
  return {
    async get(orgId) {
      const stored = policies.get(orgId);
      return stored === undefined ? null : structuredClone(stored);
    },
    async membershipAndVersion(orgId, userId) {
      // findMembership reads before its first await, so both answers come from the same state.
      const version = policies.get(orgId)?.version ?? null;
      return { membership: await orgs.findMembership(orgId, userId), version };
    },
    async put(orgId, policy) {
      const stored = { policy: structuredClone(policy), version: (policies.get(orgId)?.version ?? 0) + 1 };
      policies.set(orgId, stored);
      return structuredClone(stored);
    },
  };
}

function createSignInFactsStore(users: UserStore, orgs: OrgStore, devices: DeviceStore, settings: SettingsStore): SignInFactsStore {
  return {
    async read(userId, orgId, deviceId) {
      const user = await users.findById(userId);
      if (user === null) return null;
      const found = deviceId === null ? null : await devices.findById(deviceId);
      return {
        user,
        membership: await orgs.findMembership(orgId, userId),
        device: found !== null && found.userId === userId && found.orgId === orgId ? found : null,
        settings: await settings.getForOrg(orgId),
      };
    },
  };
}

/** A sliding log per key, as in the SQL table: the units still in the window and the next unit number. */
function createRateLimiter(tables: MemoryTables): RateLimiter {
  const logs = tables.map<string, { units: LoggedUnit[]; nextUnit: number }>();
  const consumeOne = ({ key, limit, windowMs }: RateLimitRequest, now: EpochMs): RateLimitDecision => {
    const log = logs.get(key) ?? { units: [], nextUnit: 1 };
    const units = log.units.filter((logged) => logged.at > now - windowMs);
    if (units.length >= limit) {
      logs.set(key, { ...log, units });
      return { allowed: false, count: units.length, retryAt: slidingLogRetryAt(units, limit, windowMs) };
    }
    const taken = { at: now, unit: log.nextUnit };
    logs.set(key, { units: [...units, taken], nextUnit: log.nextUnit + 1 });
    return { allowed: true, count: units.length + 1, receipt: { key, ...taken } };
  };
  return {
    async consume(key, limit, windowMs, now) {
      checkRateLimitRequests([{ key, limit, windowMs }]);
      return consumeOne({ key, limit, windowMs }, now);
    },
    async consumeMany(requests, now) {
      checkRateLimitRequests(requests);
      return requests.map((request) => consumeOne(request, now));
    },
    async refund(receipt) {
      const log = logs.get(receipt.key);
      if (log === undefined) return;
      logs.set(receipt.key, { ...log, units: log.units.filter((logged) => logged.at !== receipt.at || logged.unit !== receipt.unit) });
    },
  };
}
