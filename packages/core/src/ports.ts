/**
 * The core's ports. Every adapter (memory, SQLite, PostgreSQL) implements these and passes the
 * contract suite in `@gatehouse/core/testing`. Conventions for every store:
 * - "not found" is `null` (or `false`/`0` for mutations), never an exception;
 * - a duplicate key on `create` throws `GatehouseError("already_exists")`;
 * - methods documented as atomic must stay correct when called concurrently from several
 *   processes: one guarded statement or one transaction, never read-check-write in the caller.
 */
import type { AuditEvent, AuditEventKind } from "./audit/events.ts";
import type { Device, EpochMs, MfaChallenge, MfaIntent, Membership, Org, OrgMfaSettings, PlatformSettings, Session, User } from "./model.ts";
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

/** What a sender asks of the core while it retries one send. */
export interface SendCharges {
  /**
   * Asked before a retry that follows a request which may have been delivered: the retry may be a
   * second text, so it is charged against every send limit again. False: the limits are spent, and the
   * sender gives up without that retry.
   */
  chargeRetry(): Promise<boolean>;
}

/**
 * How a sender tells that a failed send reached no phone: its rejection is an object whose
 * `mayHaveBeenSent` is `false`. Only then are the units of the send (or of its last charged retry)
 * given back; any other rejection counts as sent, so the limits fail closed.
 */
export interface SmsSendFailure {
  readonly mayHaveBeenSent: boolean;
}

export interface SmsSender {
  /**
   * Delivers the OTP. Rejects when delivery failed; the rejection must not contain the OTP. A retry
   * after a request that may have been delivered is made only once `charges.chargeRetry()` allowed it.
   */
  sendOtp(message: OtpMessage, charges?: SendCharges): Promise<void>;
}

export interface UserStore {
  /** Throws `already_exists` when the email is taken. */
  create(user: User): Promise<void>;
  findById(id: string): Promise<User | null>;
  /** `email` is already normalised (trimmed, NFC, lower-case). */
  findByEmail(email: string): Promise<User | null>;
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
}

export interface DeviceStore {
  /**
   * Atomic get-or-create keyed by (userId, orgId, fingerprint): concurrent calls for one key
   * return the same device and exactly one of them reports `created: true`. An existing
   * device gets `lastSeenAt = now`. `candidate.id` is a fresh id (the core draws a random one
   * per call): an adapter may tell a created device by it.
   */
  getOrCreate(candidate: Device): Promise<{ device: Device; created: boolean }>;
  findById(id: string): Promise<Device | null>;
  listByUser(orgId: string, userId: string): Promise<Device[]>;
  /** Sets trusted, trustedUntil and clears any revocation. Returns false when missing. */
  markTrusted(deviceId: string, trustedUntil: EpochMs): Promise<boolean>;
  /** Clears trust and records the revocation time. Returns false when missing. */
  revokeTrust(deviceId: string, now: EpochMs): Promise<boolean>;
  /**
   * Atomic: records that a session was issued for the device. Sets `sessionIssuedAt = now` only
   * when it is still null, so the first issuance is kept whatever the concurrency. With
   * `trustedUntil`, the same write also does what `markTrusted` does (VerifyMFA issues a session and
   * trusts the device together). A missing device stays missing. It answers nothing, so inside a
   * transaction an adapter may send it with the transaction's next statement (the PostgreSQL adapter
   * does: with the audit events and the COMMIT); a failure then fails that statement or the commit.
   */
  markSessionIssued(deviceId: string, now: EpochMs, trustedUntil?: EpochMs): Promise<void>;
}

/** What `ChallengeStore.claimAttempt` answers: the claimed challenge and the facts of its sign-in. */
export interface ClaimedChallenge {
  readonly challenge: MfaChallenge;
  /** `SignInFactsStore.read(challenge.userId, challenge.orgId, challenge.deviceId)`, read after the claim. */
  readonly facts: SignInFacts | null;
}

export interface ChallengeStore {
  /**
   * Throws `already_exists` on a duplicate id. Inside a transaction the rejection may come later instead,
   * from a later call of the transaction or its commit, which then fails (the PostgreSQL adapter sends the
   * row with the transaction's next statement: ids are random, so nothing waits on the answer).
   */
  create(challenge: MfaChallenge): Promise<void>;
  findById(id: string): Promise<MfaChallenge | null>;
  /**
   * Atomic: increments `attempts` only while it is below `maxAttempts` and the challenge has not
   * expired (`expiresAt > now`), and returns the challenge as it is after the increment, with the
   * sign-in facts VerifyMFA decides on (one statement on PostgreSQL, where they were two round trips); null
   * when the challenge is missing, expired or its attempts are used up. An expired challenge is
   * left unchanged. Bounds the guesses evaluated per challenge under any concurrency. Inside a
   * transaction a claimed challenge stays held until the transaction ends: another transaction's
   * `claimAttempt`, `consume`, `delete` or `deleteClaimed` of it waits for that end (a row lock on
   * PostgreSQL, the write lock on SQLite), and then finds it as the claiming transaction left it.
   */
  claimAttempt(id: string, maxAttempts: number, now: EpochMs): Promise<ClaimedChallenge | null>;
  /** Atomic single use: deletes and returns the challenge; null when already gone. */
  consume(id: string): Promise<MfaChallenge | null>;
  /**
   * Deletes a challenge the calling transaction claimed (`claimAttempt`): that claim holds it, so the
   * delete cannot miss and answers nothing. The PostgreSQL adapter sends it with the transaction's next
   * statement. Outside the transaction that claimed the challenge, use `consume` or `delete`.
   */
  deleteClaimed(id: string): Promise<void>;
  /** Returns false when missing. */
  delete(id: string): Promise<boolean>;
  /** Deletes every challenge of the user; returns how many. */
  deleteByUser(userId: string): Promise<number>;
}

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
  /**
   * Throws `already_exists` on a duplicate id or token hash. Inside a transaction the rejection may come
   * later instead, from a later call of the transaction or its commit, which then fails (as `ChallengeStore.create`).
   */
  create(session: Session): Promise<void>;
  /** The session whose current access token has this hash, if not revoked and not expired. */
  findActiveByAccessTokenHash(accessTokenHash: string, now: EpochMs): Promise<Session | null>;
  /**
   * Atomic rotation with reuse detection. When `refreshTokenHash` is the current refresh token
   * of an active, unexpired session, replaces both tokens with `next` and remembers the old hash
   * as retired, with the rotation time and `replay.sealedSuccessor` (in the same transaction).
   * When it is a retired hash: if it was retired less than `replay.reuseIntervalMs` ago (as
   * recorded at its rotation), the session is active and unexpired, and its current refresh
   * token is still the one that replaced this hash, reports `replayed` with the stored sealed
   * successor and changes nothing; otherwise revokes the session and reports `reused`. Of N
   * concurrent calls with one token exactly one gets `rotated`; within the interval the others
   * get `replayed`.
   */
  rotate(refreshTokenHash: string, next: TokenPair, now: EpochMs, replay?: ReplayWindow): Promise<RefreshRotation>;
  /** Returns false when missing or already revoked. */
  revoke(sessionId: string, now: EpochMs): Promise<boolean>;
  /** Revokes every active session of the user in the org; returns how many. */
  revokeByUser(orgId: string, userId: string, now: EpochMs): Promise<number>;
}

export interface SettingsStore {
  /** null when never stored: the caller applies the defaults. */
  getPlatform(): Promise<PlatformSettings | null>;
  putPlatform(settings: PlatformSettings): Promise<void>;
  getOrg(orgId: string): Promise<OrgMfaSettings | null>;
  putOrg(orgId: string, settings: OrgMfaSettings): Promise<void>;
  /** `getPlatform` and `getOrg(orgId)` in one read (one statement): every sign-in decision needs both. */
  getForOrg(orgId: string): Promise<{ readonly platform: PlatformSettings | null; readonly org: OrgMfaSettings | null }>;
}

export interface VersionedBrowserPolicy {
  readonly policy: BrowserPolicy;
  /** Increases on every put; compiled policies are cached by (orgId, version). */
  readonly version: number;
}

export interface BrowserPolicyStore {
  /** null when the org never stored one: the caller applies the default policy. */
  get(orgId: string): Promise<VersionedBrowserPolicy | null>;
  /**
   * `"unchanged"` when the stored version is `knownVersion`, without reading or decoding the policy;
   * otherwise what `get` returns. Lets a reader that caches policies by version pay for a version check only.
   */
  getIfChanged(orgId: string, knownVersion: number): Promise<VersionedBrowserPolicy | "unchanged" | null>;
  /** Stores the policy and returns it with its new version (atomic increment). */
  put(orgId: string, policy: BrowserPolicy): Promise<VersionedBrowserPolicy>;
}

/** What one authenticated browser request needs to decide, read together (see `BrowserAccessStore`). */
export interface BrowserAccess {
  readonly sessionId: string;
  readonly userId: string;
  /** The org the session was issued for; the core refuses any other (`requireSessionOrg`). */
  readonly sessionOrgId: string;
  /** Whether the session's user is a member of the requested org at the time of the read. */
  readonly isMember: boolean;
  /** The requested org's policy, as `BrowserPolicyStore.getIfChanged` would return it for the same `knownPolicyVersion`. */
  readonly policy: VersionedBrowserPolicy | "unchanged" | null;
}

/**
 * The browser path's reads in one: every browser request resolves its bearer token, checks the
 * membership and checks the policy version, so a SQL store answers them in one statement (one round trip).
 */
export interface BrowserAccessStore {
  /**
   * null when no active session (not revoked, `accessExpiresAt > now`) has this access token hash;
   * otherwise the session, the membership of its user in `orgId` and the policy of `orgId`, as
   * `SessionStore.findActiveByAccessTokenHash`, `OrgStore.findMembership` and
   * `BrowserPolicyStore.getIfChanged(orgId, knownPolicyVersion)` would answer. A SQL store reads all
   * three in one statement, so they come from one snapshot; nothing is cached, so a revoked session
   * or a removed membership is refused by the next call.
   */
  resolve(accessTokenHash: string, orgId: string, knownPolicyVersion: number, now: EpochMs): Promise<BrowserAccess | null>;
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
 * The reads a sign-in decision makes, in one statement: one snapshot on both dialects and one round trip
 * on PostgreSQL, where they were four (user, membership, device, settings).
 */
export interface SignInFactsStore {
  /** Null when the user does not exist. */
  read(userId: string, orgId: string, deviceId: string | null): Promise<SignInFacts | null>;
  /**
   * The facts of a sign-in from the device `candidate` describes (`candidate.userId` in `candidate.orgId`):
   * `read`, and, only when the user is a member of the org, `DeviceStore.getOrCreate(candidate)`, whose device
   * is the answer's `device`. A non-member's sign-in stores no device and gets a null one. One statement on
   * PostgreSQL (one round trip where two were); null when the user does not exist.
   */
  readSeeingDevice(candidate: Device): Promise<SignInFacts | null>;
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
   * `consume` for every request at once, in one round trip (one statement in an SQL store); the
   * decisions come in the order of `requests`. Each key is decided atomically exactly as `consume`
   * decides it, and on its own: this is not all-or-nothing, so when one key refuses, the others
   * still take their units, and a caller that wants all or none refunds them (`consumeAll` does).
   * Why: a PostgreSQL upsert locks and re-reads only its own row (anything else comes from the
   * statement's snapshot, older under concurrency), so deciding the keys together would need a
   * locking read of them first, on every call; refunds cost statements only when a key refuses.
   * Throws RangeError, taking nothing, when a key appears twice (one statement cannot update a row
   * twice) or a limit is below 1.
   */
  consumeMany(requests: readonly RateLimitRequest[], now: EpochMs): Promise<RateLimitDecision[]>;
  /**
   * Atomic: gives back exactly the unit of `receipt`, once. A receipt no longer held (refunded already,
   * or its unit has left the window) changes nothing: a unit is never refunded twice and a count never
   * goes below zero. It answers nothing, so inside a transaction an adapter may send it with the
   * transaction's next statement (the PostgreSQL adapter does: VerifyMFA's refund of a right code's unit
   * goes out with the challenge's consumption).
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
   * Inside a transaction its failure may surface at a later call of the transaction or at the commit, which then fails.
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
 * sweep). An SQL adapter appends in the caller's transaction, so an event is stored exactly when
 * the change it records is.
 */
export interface AuditStore {
  /**
   * Appends the events in one statement (a unit of work's events go in together, one round trip).
   * Throws `already_exists` when an id is taken; the events with free ids are appended all the same.
   * Inside a transaction, a taken id fails the whole transaction with `already_exists` instead, and
   * nothing of it persists: the rejection may come from the append, from a later call in the
   * transaction or from its commit (the PostgreSQL adapter sends the events with the next statement,
   * which for the core's units of work is the COMMIT). An adapter whose append rejects at once runs its
   * transactions through `takenAuditIdFailsTransaction`, so a caller that catches it cannot commit.
   */
  append(...events: AuditEvent[]): Promise<void>;
  /**
   * One page of the events matching `query`. Paging by cursor neither skips nor repeats an event,
   * equal timestamps included, while events newer than the first page are appended. Throws
   * `invalid_argument` (field `cursor`) for a cursor no page returned, and RangeError for a limit below 1.
   */
  list(query: AuditQuery): Promise<AuditPage>;
}

export interface Stores {
  readonly users: UserStore;
  readonly orgs: OrgStore;
  readonly devices: DeviceStore;
  readonly challenges: ChallengeStore;
  readonly intents: IntentStore;
  readonly sessions: SessionStore;
  readonly settings: SettingsStore;
  readonly browserPolicies: BrowserPolicyStore;
  readonly browserAccess: BrowserAccessStore;
  readonly signInFacts: SignInFactsStore;
  readonly rateLimiter: RateLimiter;
  readonly smsTraffic: SmsTrafficStore;
  readonly audit: AuditStore;
  /**
   * A unit of work: runs `work` with stores whose calls all belong to one transaction, committed once
   * when `work` resolves; when it rejects, nothing it wrote persists and the rejection passes on. Calls
   * to `tx.transaction` inside join the open transaction. Every atomic method keeps its contract inside.
   * `work` must use only `tx` (a store may hold its one connection for the transaction, so a call on the
   * outer stores would wait for the transaction to end) and must await nothing but `tx` (no SMS, no
   * password hash): the transaction holds its locks until it commits.
   */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
}
