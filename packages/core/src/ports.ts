/**
 * The core's ports: what each store promises, in outcomes. Every adapter implements these and passes
 * the contract suite in `@gatehouse/core/testing`. Conventions for every store:
 * - "not found" is `null` (or `false`/`0` for mutations), never an exception;
 * - a duplicate key on `create` rejects that call with `GatehouseError("already_exists")`, inside a
 *   unit of work as outside it; the unit of work stays usable, so a caller may catch it and go on;
 * - methods documented as atomic stay correct when called concurrently from several processes:
 *   of concurrent callers, the one the method names wins, and no caller ever sees a half-done change;
 * - a store whose storage does not answer (unreachable, lost, timed out, full, busy) rejects with
 *   `GatehouseError("storage_unavailable")` within its configured bound instead of waiting; the unit of
 *   work it was part of then rejects too and nothing of it persists, unless the failure hit the commit
 *   itself, whose outcome the store cannot know.
 */
import type { ExtensionSessionRecord } from "./records/extension-session.ts";
import type { AuditEvent, AuditEventKind } from "./records/audit-events.ts";
import type {
  Device,
  EmailToken,
  EmailTokenPurpose,
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
  WebAuthnCeremony,
  WebAuthnChallenge,
  WebAuthnFactor,
  User,
} from "./model.ts";
import type { OidcRecord } from "./records/oidc.ts";
import type { RiskAnswer, RiskEvent } from "./records/risk-event.ts";
import type { GeoPoint, RiskObservation } from "./records/risk-observation.ts";
import type { RiskPolicy } from "./records/risk-policy.ts";
import type { ResourceServer, SigningKeyRecord } from "./records/tokens.ts";
import type { BrowserPolicy } from "./url-policy/types.ts";

export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): EpochMs;
}

export interface RandomSource {
  /** `length` bytes from a cryptographically secure generator. */
  bytes(length: number): Uint8Array;
}

export interface OtpMessage {
  readonly phone: string;
  readonly otp: string;
  /** Lets a dev-mode sender file the OTP under the challenge it belongs to. */
  readonly challengeId: string;
}

/**
 * How a sender (SMS or email) tells that a failed send reached nobody: its rejection is an object whose
 * `mayHaveBeenSent` is `false`. Only then are the send's limit units given back; any other rejection
 * counts as sent, so the limits fail closed.
 */
export interface SmsSendFailure {
  readonly mayHaveBeenSent: boolean;
}

export interface SmsSender {
  /**
   * Delivers the OTP. Rejects when delivery failed; the rejection must not contain the OTP. A sender retries
   * only a request that definitely reached no phone: a retry after one that may have been delivered could be a
   * second text that no limit counted.
   */
  sendOtp(message: OtpMessage): Promise<void>;
  /**
   * True for a sender that sends nothing by design (no SMS provider configured): challenges are
   * still created, but no `otp.sent` is recorded for a code nobody received.
   */
  readonly sendsNothing?: boolean;
}

export interface EmailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

export interface EmailSender {
  /**
   * Delivers the message. Rejects when delivery failed; the rejection must not contain the message's
   * text (it holds single-use links). A rejection saying the message went nowhere (`SmsSendFailure`'s
   * `mayHaveBeenSent: false`) gives the send's limit units back.
   */
  send(message: EmailMessage): Promise<void>;
}

export interface UserStore {
  /** Throws `already_exists` when the email is taken. */
  create(user: User): Promise<void>;
  findById(id: string): Promise<User | null>;
  /** `email` is already normalised (trimmed, NFC, lower-case). */
  findByEmail(email: string): Promise<User | null>;
  /** Every user, oldest first (ties by id): for the operator's listing, not for a request path. */
  list(): Promise<User[]>;
  /**
   * Atomic: sets the phone and `phoneVerified = true` only if the user has no verified phone yet.
   * Returns false when the user is missing or already verified (the phone is locked).
   */
  setVerifiedPhone(userId: string, phone: string): Promise<boolean>;
  /**
   * Atomic compare-and-set: replaces the password hash only while it is still `expectedHash`.
   * Returns false when the user is missing or the hash has changed since it was read, so of
   * concurrent replacements from one read exactly one wins, and a stale one never undoes a newer hash.
   */
  replacePasswordHash(userId: string, expectedHash: string, newHash: string): Promise<boolean>;
  /**
   * Sets `disabledAt` (a time: disabled from then; null: enabled). Disabling an already disabled user
   * keeps its first `disabledAt`. Returns false when the user is missing or already in the asked state,
   * so of concurrent identical calls exactly one reports the change.
   */
  setDisabled(userId: string, disabledAt: EpochMs | null): Promise<boolean>;
  /**
   * Unlocks the phone for an admin's factor reset: `phone = null`, `phoneVerified = false`, so the next MFA
   * collects a phone again. Returns false when the user is missing or has no phone.
   */
  clearPhone(userId: string): Promise<boolean>;
  /** Replaces the password hash whatever it was (a reset or a change). Returns false when the user is missing. */
  setPasswordHash(userId: string, newHash: string): Promise<boolean>;
  /** Atomic: sets `emailVerifiedAt = now` only while it is null. Returns false when the user is missing or already verified. */
  markEmailVerified(userId: string, now: EpochMs): Promise<boolean>;
  /**
   * Atomic, for the owner of a mailbox taking back an account someone else registered with it: only while
   * `emailVerifiedAt` is null, sets the password hash, clears the phone (`phone = null`, `phoneVerified =
   * false`) and the display name, and sets `emailVerifiedAt = now`. Returns false when the user is missing or
   * already verified (then nothing changes).
   */
  reclaimUnverified(userId: string, newHash: string, now: EpochMs): Promise<boolean>;
  /**
   * Atomic, for a second Register of an address still pending: only while `emailVerifiedAt` is null, sets the
   * password hash and the display name the new registrant gave (nothing of the earlier one stays). Returns false
   * when the user is missing or already verified (then nothing changes).
   */
  restartRegistration(userId: string, newHash: string, displayName: string): Promise<boolean>;
}

export interface PasswordVerification {
  readonly matches: boolean;
  /** The stored hash uses another algorithm or other parameters than a new hash would: replace it once it matched. */
  readonly needsRehash: boolean;
}

/** The password KDF. The default is Argon2id from node:crypto; tests may inject one they control. */
export interface PasswordHasher {
  /** A new hash with the current parameters, salt included. */
  hash(password: string): Promise<string>;
  /**
   * Constant-time check against a stored hash. A malformed stored hash never matches and never
   * throws, and costs the same work as a real check.
   */
  verify(password: string, stored: string): Promise<PasswordVerification>;
}

export interface OrgStore {
  /** Throws `already_exists` on a duplicate id or a slug another org has. */
  create(org: Org): Promise<void>;
  findById(id: string): Promise<Org | null>;
  /** Exact match on the stored slug; null when no org has it. */
  findBySlug(slug: string): Promise<Org | null>;
  /** Inserts or replaces the membership (a role change is an upsert). */
  putMembership(membership: Membership): Promise<void>;
  /** Returns false when there was no such membership. */
  removeMembership(orgId: string, userId: string): Promise<boolean>;
  findMembership(orgId: string, userId: string): Promise<Membership | null>;
  /** Every org, oldest first (ties by id). */
  list(): Promise<Org[]>;
  /** The org's memberships, ordered by user id; empty for an unknown org. */
  listMemberships(orgId: string): Promise<Membership[]>;
  /** The user's memberships, in every org, ordered by org id; empty for an unknown user. */
  listMembershipsOfUser(userId: string): Promise<Membership[]>;
}

export interface DeviceStore {
  /**
   * Atomic get-or-create keyed by (userId, orgId, fingerprintHash): concurrent calls for one key
   * return the same device and exactly one of them reports `created: true`. An existing
   * device gets the candidate's `lastSeenAt`, `userAgent` and `lastAddress`. `candidate.id` is a fresh id (the core draws a random one
   * per call), so a created device is the one that has it; throws `already_exists` when the
   * device is new and another device already has that id. A user holds at most `MAX_DEVICES_PER_USER`
   * devices (all orgs together): creating one more deletes the least recently seen of the others, devices
   * not trusted at `candidate.lastSeenAt` first; concurrent creations for one user, each in its own unit of
   * work, settle at that bound.
   */
  getOrCreate(candidate: Device): Promise<{ device: Device; created: boolean }>;
  findById(id: string): Promise<Device | null>;
  listByUser(orgId: string, userId: string): Promise<Device[]>;
  /** Sets trusted, trustedUntil and clears any revocation. Returns false when missing. */
  markTrusted(deviceId: string, trustedUntil: EpochMs): Promise<boolean>;
  /** Clears trust and records the revocation time. Returns false when missing. */
  revokeTrust(deviceId: string, now: EpochMs): Promise<boolean>;
  /**
   * Atomic eviction of the user's devices in `scope.orgId` (absent: in every org), except the one
   * `scope.keepDeviceId` names: each that is trusted now (trusted flag set and `trustedUntil > now`) loses
   * its trust as `revokeTrust` does, and each becomes new again (`sessionIssuedAt` null), so the next
   * sign-in from any of them is judged as from a new device, whatever the org's rule for untrusted ones.
   * Another user's devices, and the kept one, are left as they are. Returns how many lost their trust.
   */
  evictByUser(userId: string, now: EpochMs, scope?: { readonly orgId?: string; readonly keepDeviceId?: string }): Promise<number>;
  /**
   * A device of the user with this fingerprint hash, in any org, that has had a session issued
   * (`sessionIssuedAt` set): the sign-in comes from a device its owner used before. Null when none has.
   */
  findWithSession(userId: string, fingerprintHash: string): Promise<Device | null>;
  /**
   * Deletes the devices nothing needs any more: not trusted at `now` (trusted flag set and `trustedUntil > now`),
   * not seen since `seenBefore` (`lastSeenAt < seenBefore`), and with no session left (`SessionStore.deleteEnded`
   * runs first). Returns how many.
   */
  deleteUnused(now: EpochMs, seenBefore: EpochMs): Promise<number>;
  /**
   * Atomic: records that a session was issued for the device. Sets `sessionIssuedAt = now` only
   * when it is still null, so the first issuance is kept whatever the concurrency. With
   * `trustedUntil`, it also does what `markTrusted` does, atomically with it (VerifyMFA issues a
   * session and trusts the device together). A missing device stays missing.
   */
  markSessionIssued(deviceId: string, now: EpochMs, trustedUntil?: EpochMs): Promise<void>;
}

export interface ChallengeStore {
  /** Throws `already_exists` on a duplicate id. */
  create(challenge: MfaChallenge): Promise<void>;
  findById(id: string): Promise<MfaChallenge | null>;
  /**
   * Atomic: increments `attempts` only while it is below `maxAttempts` and the challenge has not
   * expired (`expiresAt > now`), and returns the challenge as it is after the increment; null when
   * the challenge is missing, expired or its attempts are used up. An expired challenge is left
   * unchanged. Of N concurrent claims at most `maxAttempts - attempts` succeed, so the guesses
   * evaluated per challenge are bounded under any concurrency. Inside a unit of work a claimed
   * challenge stays held until the unit of work ends: another unit of work's `claimAttempt`,
   * `consume` or `delete` of it waits for that end, and then finds it as the claiming one left it.
   */
  claimAttempt(id: string, maxAttempts: number, now: EpochMs): Promise<MfaChallenge | null>;
  /**
   * Atomic: gives back one claimed attempt, for a claim whose answer was never checked (a limit refused it
   * first). Never below zero; a missing challenge is left missing.
   */
  releaseAttempt(id: string): Promise<void>;
  /** Atomic single use: deletes and returns the challenge; of concurrent calls exactly one gets it, the others null. */
  consume(id: string): Promise<MfaChallenge | null>;
  /** Returns false when missing. */
  delete(id: string): Promise<boolean>;
  /** Deletes every challenge of the user; returns how many. */
  deleteByUser(userId: string): Promise<number>;
}

/** Intents are stored and looked up by the SHA-256 of the id the client holds (`MfaIntent.id`). */
export interface IntentStore {
  /** Throws `already_exists` on a duplicate id. */
  create(intent: MfaIntent): Promise<void>;
  /**
   * Atomic single use: deletes the intent and returns it when it exists and `expiresAt > now`;
   * null otherwise (an expired intent is deleted too, and still null).
   */
  consume(id: string, now: EpochMs): Promise<MfaIntent | null>;
  /** Deletes every intent of the user; returns how many. */
  deleteByUser(userId: string): Promise<number>;
}

export interface EmailTokenStore {
  /** Throws `already_exists` on a duplicate token hash. */
  create(token: EmailToken): Promise<void>;
  /** The token with this hash and purpose while `expiresAt > now`, without using it up; null otherwise. */
  find(tokenHash: string, purpose: EmailTokenPurpose, now: EpochMs): Promise<EmailToken | null>;
  /**
   * Atomic single use: deletes and returns the token with this hash and purpose when `expiresAt > now`;
   * null otherwise (an expired one is deleted too). Of concurrent calls with one hash at most one gets it.
   */
  consume(tokenHash: string, purpose: EmailTokenPurpose, now: EpochMs): Promise<EmailToken | null>;
  /** Deletes every token of the user with this purpose (a reset ends the other reset links); returns how many. */
  deleteByUser(userId: string, purpose: EmailTokenPurpose): Promise<number>;
  /** Whether the user holds a token with this purpose while `expiresAt > now` (a live link was mailed). */
  hasLive(userId: string, purpose: EmailTokenPurpose, now: EpochMs): Promise<boolean>;
}

/**
 * The client networks each account signed in from (a session was issued), by a keyed hash of the network
 * (rate-limits/client-network.ts), with when it last did: a network the owner used recently is not refused
 * because of strangers' wrong passwords.
 */
export interface SignInNetworkStore {
  /**
   * Notes that the user signed in from `network` at `at` (the latest time is kept), and forgets the user's
   * networks not seen since `forgetBefore`, so a user's rows stay bounded without a sweep.
   */
  record(userId: string, network: string, at: EpochMs, forgetBefore: EpochMs): Promise<void>;
  /** Whether the user signed in from `network` at or after `since`. */
  seenSince(userId: string, network: string, since: EpochMs): Promise<boolean>;
  /** Forgets every network of the user (a reset or a change of the password); returns how many. */
  forgetUser(userId: string): Promise<number>;
}

export interface InvitationStore {
  /**
   * Stores the invitation, replacing (and so ending the link of) any invitation for the same (org, email).
   * Throws `already_exists` on a duplicate id or token hash.
   */
  put(invitation: Invitation): Promise<void>;
  /** The invitation with this token hash while `expiresAt > now`, without using it up; null otherwise. */
  findByTokenHash(tokenHash: string, now: EpochMs): Promise<Invitation | null>;
  /**
   * Atomic single use: deletes and returns the invitation with this token hash when `expiresAt > now`; null
   * otherwise (an expired one is deleted too). Of concurrent calls with one hash at most one gets it.
   */
  consume(tokenHash: string, now: EpochMs): Promise<Invitation | null>;
  /** The org's invitations not yet expired at `now`, oldest first (ties by id). */
  listByOrg(orgId: string, now: EpochMs): Promise<Invitation[]>;
  /** Deletes the invitation when it belongs to the org; returns false otherwise. */
  delete(orgId: string, invitationId: string): Promise<boolean>;
}

/**
 * A user's second factors are one store per kind (design/factors.md); the phone stays on the user. Each store's
 * `deleteByUser` serves the factor reset, which calls all of them in one unit of work.
 */
export interface TotpStore {
  /** Throws `already_exists` on a duplicate id. */
  create(factor: TotpFactor): Promise<void>;
  find(id: string): Promise<TotpFactor | null>;
  /** The user's authenticator apps, confirmed or not, oldest first (ties by id). */
  list(userId: string): Promise<TotpFactor[]>;
  /** Atomic: sets `confirmedAt = now` only while it is null. Returns false when missing or already confirmed. */
  confirm(id: string, now: EpochMs): Promise<boolean>;
  /**
   * Atomic compare-and-set, the one-use rule of TOTP codes: sets `lastStep = step` and `lastUsedAt = now`
   * only while `lastStep` is null or below `step`. Returns false when the factor is missing or the step
   * (or a later one) was accepted already; of concurrent calls with one step exactly one gets true.
   */
  acceptStep(id: string, step: number, now: EpochMs): Promise<boolean>;
  /** Deletes the user's factor with this id; false when the user has none with it. */
  delete(userId: string, id: string): Promise<boolean>;
  /** Deletes every authenticator app of the user; returns how many went. */
  deleteByUser(userId: string): Promise<number>;
}

export interface RecoveryCodeStore {
  /** Atomically replaces every recovery code of the user with `codes` (all of this user). */
  replace(userId: string, codes: readonly RecoveryCode[]): Promise<void>;
  /**
   * Atomic single use: deletes the user's code with this hash and returns how many codes the user has left;
   * null when the user has no such code. Of concurrent calls with one hash at most one gets a number.
   */
  consume(userId: string, codeHash: string): Promise<number | null>;
  count(userId: string): Promise<number>;
  /** Deletes every recovery code of the user; returns how many went. */
  deleteByUser(userId: string): Promise<number>;
}

export interface PasskeyStore {
  /** Throws `already_exists` on a duplicate id or a credential id any user holds already. */
  create(factor: WebAuthnFactor): Promise<void>;
  /** The user's passkeys, oldest first (ties by id). */
  list(userId: string): Promise<WebAuthnFactor[]>;
  findByCredentialId(credentialId: string): Promise<WebAuthnFactor | null>;
  /**
   * Atomic compare-and-set of the signature counter: records `counter`, `backedUp` and `lastUsedAt = now`
   * only while the stored counter is below `counter`, or both are 0 (an authenticator that keeps no
   * counter). False otherwise (missing, or a counter that did not move forward: a cloned authenticator, or
   * a concurrent use of the same count); of concurrent calls with one counter at most one gets true.
   */
  acceptCounter(id: string, counter: number, backedUp: boolean, now: EpochMs): Promise<boolean>;
  /** Deletes the user's passkey with this id; false when the user has none with it. */
  delete(userId: string, id: string): Promise<boolean>;
  /** Deletes every passkey of the user; returns how many went. */
  deleteByUser(userId: string): Promise<number>;
}

/** The challenges of pending WebAuthn ceremonies: passkey registration, step-up and sign-in. */
export interface WebAuthnChallengeStore {
  /** Stores a ceremony's challenge, replacing one with the same id. */
  put(challenge: WebAuthnChallenge): Promise<void>;
  /**
   * Atomic single use: deletes and returns the challenge with this id and ceremony while `expiresAt > now`;
   * null otherwise (an expired one is deleted too). Of concurrent calls at most one gets it.
   */
  consume(id: string, ceremony: WebAuthnCeremony, now: EpochMs): Promise<WebAuthnChallenge | null>;
  /** Deletes every pending ceremony of the user. */
  deleteByUser(userId: string): Promise<void>;
}

/** What a step-up proved: the session's new `amr`, `aal` and `mfaAt`. */
export type StepUpProof = Pick<Session, "amr" | "aal" | "mfaAt">;

export interface TokenPair {
  readonly accessTokenHash: string;
  readonly accessExpiresAt: EpochMs;
  readonly refreshTokenHash: string;
  readonly refreshExpiresAt: EpochMs;
}

/**
 * What `rotate` keeps so a replay of the just-rotated token within the reuse interval can get
 * the same successor tokens back. `sealedSuccessor` is opaque to the store: the core encrypted
 * the successor tokens under a key only the holder of the old refresh token can derive.
 */
export interface ReplayWindow {
  readonly sealedSuccessor: string;
  /** How long after the rotation a replay is answered with the successor; 0 turns replay off. */
  readonly reuseIntervalMs: number;
}

export type RefreshRotation =
  | { readonly kind: "rotated"; readonly session: Session }
  /**
   * The token was rotated away less than the reuse interval ago and its successor is still the
   * session's current token: the session is left active and the sealed successor returned.
   */
  | { readonly kind: "replayed"; readonly session: Session; readonly sealedSuccessor: string }
  /** The token was current once and has been rotated away: the session, named with its owner and device, is now revoked. */
  | { readonly kind: "reused"; readonly sessionId: string; readonly userId: string; readonly orgId: string; readonly deviceId: string }
  /** Unknown, expired, or belonging to a revoked session. */
  | { readonly kind: "invalid" };

export interface SessionStore {
  /** Throws `already_exists` on a duplicate id or token hash. */
  create(session: Session): Promise<void>;
  /** The session whose current access token has this hash, if not revoked and not expired. */
  findActiveByAccessTokenHash(accessTokenHash: string, now: EpochMs): Promise<Session | null>;
  /**
   * Atomic rotation with reuse detection. When `refreshTokenHash` is the current refresh token
   * of an active, unexpired session (its refresh token and its absolute end both later than `now`), replaces both tokens with `next`, each expiry capped at the
   * session's `expiresAt` (which never moves: rotation never extends a session), and remembers the old hash
   * as retired, with the rotation time and `replay.sealedSuccessor` atomically with the rotation.
   * When it is a retired hash: if it was retired less than `replay.reuseIntervalMs` ago (as
   * recorded at its rotation), the session is active and unexpired, and its current refresh
   * token is still the one that replaced this hash, reports `replayed` with the stored sealed
   * successor and changes nothing; otherwise revokes the session and reports `reused`. Of N
   * concurrent calls with one token exactly one gets `rotated`; within the interval the others
   * get `replayed`.
   */
  rotate(refreshTokenHash: string, next: TokenPair, now: EpochMs, replay?: ReplayWindow): Promise<RefreshRotation>;
  /**
   * Atomic step-up: when the session is active and unexpired at `now`, records the second factor it just
   * proved (`amr`, `aal`, `mfaAt`) and replaces both its tokens with `next` (each expiry capped at its
   * `expiresAt`, as rotation does), so the tokens held before stop working. Returns the session as it is
   * after; null when it is missing, revoked or expired.
   */
  recordStepUp(sessionId: string, proof: StepUpProof, next: TokenPair, now: EpochMs): Promise<Session | null>;
  /** The user's sessions in the org that are live at `now` (not revoked, refresh token and absolute end later), newest first (ties by id). */
  listActiveByUser(orgId: string, userId: string, now: EpochMs): Promise<Session[]>;
  /** Returns false when missing or already revoked. */
  revoke(sessionId: string, now: EpochMs): Promise<boolean>;
  /**
   * Deletes the sessions that can never be used again (revoked, or past their refresh token's expiry or their
   * absolute end at `now`) once none of their retired refresh tokens still detects a reuse (`expires_at > now`):
   * no answer changes. Returns how many.
   */
  deleteEnded(now: EpochMs): Promise<number>;
  /**
   * Atomic: revokes every active session of the user (not revoked, its access or refresh token not yet
   * expired) in `scope.orgId` (absent: in every org), except the one `scope.keepSessionId` names; returns
   * how many. Another user's sessions, and the kept one, are left as they are.
   */
  revokeByUser(userId: string, now: EpochMs, scope?: { readonly orgId?: string; readonly keepSessionId?: string }): Promise<number>;
  /** Revokes every active session issued for the device; returns how many. */
  revokeByDevice(deviceId: string, now: EpochMs): Promise<number>;
}

export interface SettingsStore {
  /** null when never stored: the caller applies the defaults. */
  getPlatform(): Promise<PlatformSettings | null>;
  putPlatform(settings: PlatformSettings): Promise<void>;
  getOrg(orgId: string): Promise<OrgMfaSettings | null>;
  putOrg(orgId: string, settings: OrgMfaSettings): Promise<void>;
  /** `getPlatform` and `getOrg(orgId)` together, from one consistent state: every sign-in decision needs both. */
  getForOrg(orgId: string): Promise<{ readonly platform: PlatformSettings | null; readonly org: OrgMfaSettings | null }>;
}

export interface VersionedBrowserPolicy {
  readonly policy: BrowserPolicy;
  /** Increases on every put; compiled policies are cached by (orgId, version). */
  readonly version: number;
}

export interface MembershipAndPolicyVersion {
  readonly membership: Membership | null;
  readonly version: number | null;
}

export interface BrowserPolicyStore {
  /** null when the org never stored one: the caller applies the default policy. */
  get(orgId: string): Promise<VersionedBrowserPolicy | null>;
  /**
   * What every browser request asks after authentication, from one consistent state: `userId`'s membership of
   * `orgId` (as `OrgStore.findMembership`) and the version `get` would return now, without the policy (null when
   * the org never stored one). The version is told whether or not the user is a member; the caller decides.
   */
  membershipAndVersion(orgId: string, userId: string): Promise<MembershipAndPolicyVersion>;
  /** Stores the policy and returns it with its new version (atomic increment). */
  put(orgId: string, policy: BrowserPolicy): Promise<VersionedBrowserPolicy>;
}

/** One record per browser extension session, written by its rules poll (records/extension-session.ts). */
export interface ExtensionSessionStore {
  /** Inserts or replaces the record of `record.sessionId` (one statement: every poll writes it). */
  recordPoll(record: ExtensionSessionRecord): Promise<void>;
  /** The org's records, last poll newest first (ties by session id). */
  listByOrg(orgId: string): Promise<ExtensionSessionRecord[]>;
  /** The user's records in the org, last poll newest first (ties by session id). */
  listByUser(orgId: string, userId: string): Promise<ExtensionSessionRecord[]>;
}

/** What deciding a sign-in needs to know about one user in one org (Login, Refresh, VerifyMFA). */
export interface SignInFacts {
  readonly user: User;
  readonly membership: Membership | null;
  /** The device asked for, when it exists and belongs to this user in this org; null otherwise, or when none was asked for. */
  readonly device: Device | null;
  /** As `SettingsStore.getForOrg`: each null while never stored. */
  readonly settings: { readonly platform: PlatformSettings | null; readonly org: OrgMfaSettings | null };
}

/**
 * The one combined read of the sign-in path (as lucia keeps `getSessionAndUser`): user, membership, device
 * and settings, all from one consistent state, so a decision never mixes a user with another moment's
 * membership.
 */
export interface SignInFactsStore {
  /** Null when the user does not exist. */
  read(userId: string, orgId: string, deviceId: string | null): Promise<SignInFacts | null>;
}

/** Identifies the one unit a `consume` took, so `refund` can give back exactly that unit. */
export interface RateLimitReceipt {
  readonly key: string;
  /** The `now` of the consume that took the unit. */
  readonly at: EpochMs;
  /** Unique among the key's units taken at `at`. */
  readonly unit: number;
}

export type RateLimitDecision =
  | {
      readonly allowed: true;
      /** Units in the window ending at `now`, this one included (never above the limit). */
      readonly count: number;
      readonly receipt: RateLimitReceipt;
    }
  | {
      readonly allowed: false;
      /** Units in the window ending at `now`. */
      readonly count: number;
      /** The earliest time a consume can succeed: when enough of the oldest units have left the window. */
      readonly retryAt: EpochMs;
    };

/** One key of a `consumeMany` call: the arguments `consume` takes for it. */
export interface RateLimitRequest {
  readonly key: string;
  /** A whole number ≥ 1. */
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * Sliding-log limits shared by every replica (they live in the same store as the rest). A unit
 * taken at `t` counts against every consume whose `now` lies in `[t, t + windowMs)`; so no
 * interval of `windowMs` ever holds more than `limit` taken units, wherever it starts.
 */
export interface RateLimiter {
  /**
   * Atomic: takes one unit for `key` only while fewer than `limit` (≥ 1) units were taken in the
   * window `(now - windowMs, now]`. The count never exceeds `limit`, whatever the concurrency.
   * A refused call takes nothing.
   */
  consume(key: string, limit: number, windowMs: number, now: EpochMs): Promise<RateLimitDecision>;
  /**
   * `consume` for every request at once; the decisions come in the order of `requests`. Each key is
   * decided atomically exactly as `consume` decides it, and on its own: this is not all-or-nothing, so
   * when one key refuses, the others still take their units, and a caller that wants all or none
   * refunds them (`consumeAll` does). Throws RangeError, taking nothing, when a key appears twice or a
   * limit is below 1.
   */
  consumeMany(requests: readonly RateLimitRequest[], now: EpochMs): Promise<RateLimitDecision[]>;
  /**
   * Atomic: gives back exactly the unit of `receipt`, once. A receipt no longer held (refunded already,
   * or its unit has left the window) changes nothing: a unit is never refunded twice and a count never
   * goes below zero, whatever the concurrency.
   */
  refund(receipt: RateLimitReceipt): Promise<void>;
}

/** One destination key's codes over a period: sent (each request that may have reached a phone) and verified. */
export interface SmsTrafficTotals {
  readonly key: string;
  readonly sent: number;
  readonly verified: number;
}

export interface SmsTrafficReading extends SmsTrafficTotals {
  /** Until when the key's breaker refuses sends; null when it is closed at the time read. */
  readonly openUntil: EpochMs | null;
}

/**
 * Codes sent and verified per destination key (a country or a number prefix), counted in buckets
 * whose start the caller chooses, and the conversion breaker of each key. Shared by every replica.
 */
export interface SmsTrafficStore {
  /**
   * Atomic: adds `sent` and `verified` to each key's counts in the bucket starting at `bucketStart`
   * (created at zero). Concurrent adds all count. A negative `sent` takes back a send that reached no phone.
   */
  add(keys: readonly string[], bucketStart: EpochMs, sent: number, verified: number): Promise<void>;
  /**
   * One reading per key, in the order of `keys`: its counts summed over the buckets starting at or
   * after `from`, and its breaker's `openUntil` when that is after `now`. A key never counted reads zeros.
   */
  read(keys: readonly string[], from: EpochMs, now: EpochMs): Promise<SmsTrafficReading[]>;
  /**
   * Atomic: opens the breaker of `key` until `until` unless it is already open at `now`. True for the
   * call that opened it; of concurrent calls exactly one gets true, the others false.
   */
  trip(key: string, until: EpochMs, now: EpochMs): Promise<boolean>;
  /** Every key counted in buckets starting in `[from, to)`, with its summed counts, ordered by key. */
  report(from: EpochMs, to: EpochMs): Promise<SmsTrafficTotals[]>;
}

/** Which audit events `AuditStore.list` returns: every filter given must match; none given lists all. */
export interface AuditQuery {
  readonly orgId?: string;
  readonly userId?: string;
  /** Any of these kinds; absent or empty: every kind. */
  readonly kinds?: readonly AuditEventKind[];
  /** Inclusive lower bound on `at`. */
  readonly from?: EpochMs;
  /** Exclusive upper bound on `at`. */
  readonly to?: EpochMs;
  /** At most this many events (a whole number ≥ 1). */
  readonly limit: number;
  /** The `nextCursor` of the previous page; absent for the first page. */
  readonly cursor?: string;
}

export interface AuditPage {
  /** Newest first (by `at`, ties by id descending). */
  readonly events: AuditEvent[];
  /** Where the next page starts; null when this page holds the last matching event. */
  readonly nextCursor: string | null;
}

/**
 * The audit trail: append-only (nothing updates or deletes an event but the adapter's retention
 * sweep). Inside a unit of work an append belongs to it, so an event is stored exactly when the
 * change it records is.
 */
export interface AuditStore {
  /**
   * Appends the events. Throws `already_exists` when an id is taken; the events with free ids are
   * appended all the same (and, inside a unit of work, commit or roll back with it).
   */
  append(...events: AuditEvent[]): Promise<void>;
  /**
   * One page of the events matching `query`. Paging by cursor neither skips nor repeats an event,
   * equal timestamps included, while events newer than the first page are appended. Throws
   * `invalid_argument` (field `cursor`) for a cursor no page returned, and RangeError for a limit below 1.
   */
  list(query: AuditQuery): Promise<AuditPage>;
}

/** The keys that sign access JWTs: only ever added (their schedule follows from their times, tokens/key-schedule.ts). */
export interface SigningKeyStore {
  /** Throws `already_exists` on a duplicate kid. */
  create(key: SigningKeyRecord): Promise<void>;
  /** Every key, oldest activation first (ties by kid). */
  list(): Promise<SigningKeyRecord[]>;
}

/** The services registered to receive Gatehouse tokens (OAuth resource servers). */
export interface ResourceServerStore {
  /** Throws `already_exists` on a duplicate client id. */
  create(server: ResourceServer): Promise<void>;
  findByClientId(clientId: string): Promise<ResourceServer | null>;
  /** Whether any registered resource server has this exact audience. */
  hasAudience(audience: string): Promise<boolean>;
  /** Every resource server, oldest first (ties by client id). */
  list(): Promise<ResourceServer[]>;
}

/** What offline IP data says of an address; null where it says nothing. No network call. */
export interface IpFacts {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string | null;
  readonly asn: number | null;
  readonly location: GeoPoint | null;
}

export interface IpLocator {
  locate(ip: string): IpFacts;
}

/** What a user agent says of the client, in the RBA dataset's terms. */
export interface UserAgentFacts {
  /** Name and major version, such as "Chrome 131". */
  readonly browser: string | null;
  readonly os: string | null;
  readonly deviceType: string | null;
}

export interface UserAgentParser {
  parse(userAgent: string): UserAgentFacts;
}

/** One level of a feature chain as the platform counts it: its key, and its parent's (null at the chain's root). Both hashed. */
export interface PlatformLevel {
  readonly key: string;
  readonly parent: string | null;
}

/** A user's sign-ins that show one set of feature values (`featureKey`), and how many they are. */
export interface SignInFeatures {
  readonly features: string;
  readonly times: number;
}

/** The platform's sign-ins under one level key, and the distinct values seen directly below it. */
export interface PlatformFeatureCount {
  readonly count: number;
  readonly distinct: number;
}

/** What the risk engine keeps: each user's recent sign-ins, the platform's feature counts, its decisions, each org's policy. */
export interface RiskStore {
  /** The user's sign-ins at or after `since`, at most the newest `limit`, oldest first. */
  history(userId: string, since: EpochMs, limit: number): Promise<RiskObservation[]>;
  /**
   * The user's sign-ins at or after `since` grouped by their `featureKey`: each key once, with how many of them
   * show it, in no order. What the score counts: most sign-ins of a user repeat a few places and browsers.
   */
  signInFeatures(userId: string, since: EpochMs): Promise<SignInFeatures[]>;
  /**
   * Appends a sign-in to the user's history, forgets the user's sign-ins before `forgetBefore` and all but
   * the newest `keep`. Atomic per call.
   */
  recordSignIn(userId: string, observation: RiskObservation, forgetBefore: EpochMs, keep: number): Promise<void>;
  /**
   * Counts one sign-in at every level, root first: a level's count rises by one, and its parent's distinct
   * children by one when the level was never seen before. Atomic per level, concurrently too.
   */
  countPlatform(levels: readonly PlatformLevel[]): Promise<void>;
  /** The counts of these keys; a key never counted is absent. */
  platformCounts(keys: readonly string[]): Promise<ReadonlyMap<string, PlatformFeatureCount>>;
  appendEvent(event: RiskEvent): Promise<void>;
  /** The org's events (of one user when given, none before `since` when given), newest first, at most `limit`. */
  listEvents(query: { readonly orgId: string | null; readonly userId?: string; readonly since?: EpochMs; readonly limit: number }): Promise<RiskEvent[]>;
  /** Records the user's answer on one of their own events (the last one given stands); false when they have no such event. */
  answerEvent(eventId: string, userId: string, answer: RiskAnswer): Promise<boolean>;
  /** Null while the org never stored one. */
  policy(orgId: string): Promise<RiskPolicy | null>;
  putPolicy(orgId: string, policy: RiskPolicy): Promise<void>;
}

/**
 * What the mounted OpenID Provider keeps (records/oidc.ts): one record per (model, id). A record past its
 * expiry reads as absent.
 */
export interface OidcStore {
  /** Inserts or replaces the record; a consumed record stays consumed. */
  upsert(record: Omit<OidcRecord, "consumedAt">): Promise<void>;
  find(model: string, id: string, now: EpochMs): Promise<OidcRecord | null>;
  findByUid(model: string, uid: string, now: EpochMs): Promise<OidcRecord | null>;
  findByUserCode(model: string, userCode: string, now: EpochMs): Promise<OidcRecord | null>;
  /** Marks it consumed at `at` (the first consumption's time stays). */
  consume(model: string, id: string, at: EpochMs): Promise<void>;
  destroy(model: string, id: string): Promise<void>;
  /** Removes every record of the grant, whatever its model. */
  revokeByGrantId(grantId: string): Promise<void>;
  /** Up to `limit` live records of the model with an id after `afterId` (null: from the first), by id: a sweep's page. */
  listByModel(model: string, afterId: string | null, limit: number, now: EpochMs): Promise<OidcRecord[]>;
}

export interface Stores {
  readonly users: UserStore;
  readonly orgs: OrgStore;
  readonly devices: DeviceStore;
  readonly challenges: ChallengeStore;
  readonly intents: IntentStore;
  readonly emailTokens: EmailTokenStore;
  readonly invitations: InvitationStore;
  readonly signInNetworks: SignInNetworkStore;
  readonly totp: TotpStore;
  readonly recoveryCodes: RecoveryCodeStore;
  readonly passkeys: PasskeyStore;
  readonly webauthnChallenges: WebAuthnChallengeStore;
  readonly sessions: SessionStore;
  readonly settings: SettingsStore;
  readonly browserPolicies: BrowserPolicyStore;
  readonly extensionSessions: ExtensionSessionStore;
  readonly signInFacts: SignInFactsStore;
  readonly rateLimiter: RateLimiter;
  readonly smsTraffic: SmsTrafficStore;
  readonly audit: AuditStore;
  readonly signingKeys: SigningKeyStore;
  readonly resourceServers: ResourceServerStore;
  readonly risk: RiskStore;
  readonly oidc: OidcStore;
  /**
   * A unit of work: runs `work` with stores whose calls are all-or-nothing together: everything it
   * wrote persists when `work` resolves; when it rejects, nothing it wrote persists and the rejection
   * passes on. Calls to `tx.transaction` inside join the open unit of work. Every atomic method keeps
   * its contract inside. `work` must use only `tx` (a call on the outer stores may wait for the unit of
   * work to end) and must await nothing but `tx` (no SMS, no password hash): what it holds, it holds
   * until it ends.
   */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
}
