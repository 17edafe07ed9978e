import type { PhoneRegion } from "./phone.ts";
import { anonymizerAsns } from "./records/anonymizer-asns.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Argon2id parameters of a password hash (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_PASSES, PASSWORD_HASH_PARALLELISM). */
export interface Argon2idParams {
  /** Memory per hash in KiB (at least 8 × parallelism). */
  readonly memoryKiB: number;
  /** Passes over the memory (t). */
  readonly passes: number;
  /** Lanes (p). */
  readonly parallelism: number;
}

/** OWASP's Password Storage Cheat Sheet: m = 19 MiB, t = 2, p = 1. */
export const OWASP_ARGON2ID_PARAMS: Argon2idParams = { memoryKiB: 19_456, passes: 2, parallelism: 1 };

/** WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME and WEBAUTHN_ORIGINS. */
export interface WebAuthnRelyingParty {
  /** A registrable domain (never an IP address): passkeys made for it work on it and its subdomains only. */
  readonly rpId: string;
  /** Shown by the authenticator. */
  readonly rpName: string;
  /** The origins a ceremony's client data may name (scheme, host and port); at least one. */
  readonly origins: readonly string[];
}

export interface WindowLimit {
  readonly limit: number;
  readonly windowMs: number;
}

/** Numbers the spec leaves open; each default is documented with its reason in docs/configuration.md. */
export interface GatehouseConfig {
  readonly challengeTtlMs: number;
  readonly intentTtlMs: number;
  readonly accessTokenTtlMs: number;
  /** A session's absolute lifetime, from its creation: no refresh extends it. */
  readonly sessionMaxAgeMs: number;
  /** A session not refreshed within this ends (each refresh token lives this long, within the absolute lifetime). */
  readonly sessionIdleMs: number;
  /**
   * How long a just-rotated refresh token, replayed, gets the same successor tokens instead of
   * revoking the session (two tabs, a lost response); 0 turns it off.
   */
  readonly refreshReuseIntervalMs: number;
  /** When set, OTP hashes are HMAC-SHA256 keyed with it (see otp.ts). */
  readonly otpHashKey: string | undefined;
  /**
   * 32 bytes: seals TOTP secrets (AES-256-GCM) and keys recovery-code hashes. Unset, a development key
   * derived from a published constant is used (the server refuses that in production).
   */
  readonly factorEncryptionKey: Uint8Array | undefined;
  /** The issuer authenticator apps show next to the account (the `otpauth://` URI's issuer). */
  readonly totpIssuer: string;
  /** The WebAuthn relying party passkeys are bound to (see factors/webauthn.ts). */
  readonly webauthn: WebAuthnRelyingParty;
  /** Argon2id parameters of new hashes; stored hashes with others are replaced at their next successful login. */
  readonly password: Argon2idParams;
  /** Password hashes computed at once (the server sets its cores). */
  readonly passwordHashConcurrency: number;
  /** Password hashes that may wait for a slot; past it, whatever needs one answers `rate_limited`. */
  readonly passwordHashQueueLimit: number;
  /** Verification attempts per challenge before it is deleted. */
  readonly otpAttemptsPerChallenge: number;
  /**
   * Wrong passwords per (account, client network: an IPv4 /24, an IPv6 /64) from devices that never had a
   * session for it; and, apart, per device that had one and per signed-in user checking their own password.
   */
  readonly passwordFailuresPerNetwork: WindowLimit;
  /**
   * The ceiling of an account's wrong passwords from every network together, far above one network's.
   * Past it, only the owner's known devices, networks the account signed in from within `familiarNetworkMs`,
   * and a sign-in holding an emailed unblock link are let through (docs/security.md, G4).
   */
  readonly passwordFailuresPerAccount: WindowLimit;
  /** How long a network the account signed in from stays familiar (spared the ceiling, its own email budget). */
  readonly familiarNetworkMs: number;
  /** How long an emailed unblock link lets its owner past the ceiling, once. */
  readonly unblockLinkTtlMs: number;
  /** Unblock links mailed to one address: the ceiling keeps refusing, so the owner is told, but not without end. */
  readonly unblockEmailsPerAddress: WindowLimit;
  /** Audit events of unauthenticated callers recorded per client IP; past it they are dropped (see audit/record.ts). */
  readonly anonymousAuditPerIp: WindowLimit;
  /** StartPasskeySignIn per client IP: each stores a challenge for anyone who asks. */
  readonly passkeySignInsPerClient: WindowLimit;
  /** Wrong OTPs per user across all challenges. */
  readonly otpFailuresPerUser: WindowLimit;
  /** Send limits: every window of one list has a length of its own (a window's log is keyed by its length). */
  readonly otpSendsPerPhone: readonly WindowLimit[];
  readonly otpSendsPerUser: readonly WindowLimit[];
  /**
   * Texts a step-up sends per session, besides the phone's and the user's limits: well under the phone's, so that
   * whoever holds a session, stolen or not, cannot spend the owner's sends and keep them from signing in.
   */
  readonly otpSendsPerStepUpSession: readonly WindowLimit[];
  /**
   * Platform-wide sends per number prefix (the E.164 number without its last four digits) and per
   * region: pumping spreads over many numbers of one leased range, which no per-phone limit sees.
   * The prefix's windows are sliding logs like the other send limits. The region's one window is
   * checked against the traffic counts (`SmsTrafficStore`, 5-minute buckets, the oldest bucket
   * counted whole): a log of a busy region's thousand units would cost every send far more than the
   * check, and a region's cap is a velocity bound, not a per-person one.
   */
  readonly otpSendsPerPrefix: readonly WindowLimit[];
  readonly otpSendsPerCountry: WindowLimit;
  /** The conversion breaker (sms-guard.ts). */
  readonly smsBreaker: SmsBreakerConfig;
  /** How long after a code was sent ResendMFA is refused, so a resend button cannot be hammered. */
  readonly otpResendIntervalMs: number;
  /** Region whose dialling rules read a phone given without `+`; none: such digits are the international number. */
  readonly phoneDefaultRegion: PhoneRegion | undefined;
  /** False: the risk engine keeps an address's /24 (IPv4) or /64 (IPv6) only, and judges by it (`RISK_STORE_FULL_IP`). */
  readonly riskStoreFullIp: boolean;
  /** Hosting and anonymiser networks a sign-in from which asks for a second factor: the shipped list and `RISK_ANONYMIZER_ASNS`. */
  readonly riskAnonymizerAsns: ReadonlySet<number>;
  /**
   * Browser policy saves per org by its admins (the CLI is not limited): a save of a large policy is the
   * costliest write there is, and one org's admin saving in a loop must not take the server from the others.
   */
  readonly browserPolicyWritesPerOrg: readonly WindowLimit[];
  /**
   * Browser policy saves a user may send, counted before the transport reads the policy: a save refused
   * only after its megabytes were decoded costs the server as much as one admitted (admitBrowserPolicyWrite).
   */
  readonly browserPolicyWritesPerUser: readonly WindowLimit[];
  /**
   * Batches of enforcement reports one session (a connected browser extension) may send: each batch writes up to
   * 50 audit rows, so a session that reports in a loop must not fill the trail.
   */
  readonly enforcementReportsPerSession: readonly WindowLimit[];
  /** Base of every emailed link (no trailing slash needed): the web client's pages open under it. */
  readonly publicUrl: string;
  /**
   * `required`: an account proves its mailbox before it can sign in or join an org. `off`: accounts are
   * verified on creation and nothing is emailed at Register (pre-hijacking is possible; the server warns).
   */
  readonly emailVerification: "required" | "off";
  readonly emailVerificationTtlMs: number;
  readonly passwordResetTtlMs: number;
  /** Lifetime of the "This wasn't me" link a new-location or new-device email carries: days, since such mail is read late. */
  readonly signInNoticeLinkTtlMs: number;
  readonly invitationTtlMs: number;
  /**
   * Emails one budget sends to one address, so a mailbox cannot be flooded through us. Each sender has a budget
   * of its own (email-send-limits.ts): anonymous callers (Register, RequestPasswordReset), the owner's request
   * from a familiar network, each org's admins' reset links and each org's invitations.
   */
  readonly emailSendsPerAddress: WindowLimit;
  /** Emails anonymous callers (Register, RequestPasswordReset) have sent for one client (an IPv6 /64). */
  readonly emailSendsPerClient: WindowLimit;
  /** Emails an org's admins send (invitations, notices, reset links), however many addresses they name. */
  readonly emailSendsPerOrg: WindowLimit;
  /** Lifetime of an access JWT (RFC 9068); a JWT never outlives its session either. */
  readonly accessJwtTtlMs: number;
  /** How long a verifier may cache the key set (the JWKS's `Cache-Control: max-age`): a rotated key is published this long before it signs. */
  readonly jwksMaxAgeMs: number;
  /** How far a verifier's clock may lag ours: a retired key stays published this much longer than its last token's lifetime. */
  readonly jwtClockSkewMs: number;
  /** Introspection requests per client IP, checked before the client's secret. */
  readonly introspectionsPerIp: WindowLimit;
}

/**
 * Pumped codes are never entered: when, over the last `windowMs`, at least `minSends` codes went to
 * one prefix (or region) and fewer than `minConversion` of them were verified, sends to it are refused
 * for `cooldownMs`.
 */
export interface SmsBreakerConfig {
  readonly windowMs: number;
  /** Verified codes per code sent, from 0 (breaker off) to 1. */
  readonly minConversion: number;
  readonly minSendsPerPrefix: number;
  readonly minSendsPerCountry: number;
  readonly cooldownMs: number;
}

export const DEFAULT_CONFIG: GatehouseConfig = {
  accessJwtTtlMs: 5 * MINUTE,
  jwksMaxAgeMs: 5 * MINUTE,
  jwtClockSkewMs: 30_000,
  introspectionsPerIp: { limit: 60_000, windowMs: MINUTE },
  challengeTtlMs: 10 * MINUTE,
  intentTtlMs: 10 * MINUTE,
  accessTokenTtlMs: 15 * MINUTE,
  sessionMaxAgeMs: 30 * DAY,
  sessionIdleMs: 7 * DAY,
  refreshReuseIntervalMs: 10_000,
  otpHashKey: undefined,
  factorEncryptionKey: undefined,
  totpIssuer: "Gatehouse",
  webauthn: { rpId: "localhost", rpName: "Gatehouse", origins: ["http://localhost:8080"] },
  password: OWASP_ARGON2ID_PARAMS,
  // libuv's default thread pool, which runs node:crypto's KDFs, has 4 threads: more would wait there, unbounded.
  passwordHashConcurrency: 4,
  passwordHashQueueLimit: 64,
  otpAttemptsPerChallenge: 5,
  passwordFailuresPerNetwork: { limit: 10, windowMs: 15 * MINUTE },
  passwordFailuresPerAccount: { limit: 100, windowMs: DAY },
  familiarNetworkMs: 30 * DAY,
  unblockLinkTtlMs: 30 * MINUTE,
  unblockEmailsPerAddress: { limit: 4, windowMs: DAY },
  anonymousAuditPerIp: { limit: 50, windowMs: 15 * MINUTE },
  passkeySignInsPerClient: { limit: 30, windowMs: MINUTE },
  otpFailuresPerUser: { limit: 10, windowMs: 15 * MINUTE },
  otpSendsPerPhone: [
    { limit: 5, windowMs: 15 * MINUTE },
    { limit: 20, windowMs: DAY },
  ],
  otpSendsPerUser: [{ limit: 20, windowMs: DAY }],
  otpSendsPerStepUpSession: [
    { limit: 3, windowMs: HOUR },
    { limit: 10, windowMs: DAY },
  ],
  otpSendsPerPrefix: [{ limit: 30, windowMs: HOUR }],
  otpSendsPerCountry: { limit: 1000, windowMs: HOUR },
  smsBreaker: { windowMs: HOUR, minConversion: 0.2, minSendsPerPrefix: 20, minSendsPerCountry: 200, cooldownMs: HOUR },
  otpResendIntervalMs: 30_000,
  phoneDefaultRegion: undefined,
  riskStoreFullIp: true,
  riskAnonymizerAsns: anonymizerAsns([]),
  browserPolicyWritesPerOrg: [{ limit: 10, windowMs: MINUTE }],
  browserPolicyWritesPerUser: [{ limit: 10, windowMs: MINUTE }],
  enforcementReportsPerSession: [
    { limit: 10, windowMs: MINUTE },
    { limit: 120, windowMs: HOUR },
  ],
  publicUrl: "http://localhost:8080",
  emailVerification: "required",
  emailVerificationTtlMs: DAY,
  passwordResetTtlMs: 30 * MINUTE,
  signInNoticeLinkTtlMs: 3 * DAY,
  invitationTtlMs: 7 * DAY,
  emailSendsPerAddress: { limit: 5, windowMs: HOUR },
  emailSendsPerClient: { limit: 20, windowMs: HOUR },
  emailSendsPerOrg: { limit: 200, windowMs: HOUR },
};

export const DAY_MS = DAY;
