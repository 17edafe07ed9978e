/**
 * The ground floor every use case stands on: the `Context` it is handed, and the shapes of the pieces the
 * context carries. Each piece is built in its capability's folder (the secret box and the recovery-code
 * hasher in factors/, the hash queue in passwords/, ...) and the context is assembled by `createGatehouse`
 * (gatehouse.ts), so nothing here imports the code that builds it.
 */
import type { AuditEvent, SmsBreakerScope } from "./records/audit-events.ts";
import type { GatehouseConfig } from "./config.ts";
import type { EpochMs } from "./model.ts";
import type { Clock, EmailSender, IpLocator, PasswordHasher, RandomSource, SmsSender, Stores, UserAgentParser } from "./ports.ts";

export interface Context {
  readonly stores: Stores;
  readonly sms: SmsSender;
  readonly email: EmailSender;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: GatehouseConfig;
  readonly passwordHasher: PasswordHasher;
  /** Every password hash and verification runs through it. */
  readonly hashQueue: HashQueue;
  readonly smsGuardObserver: SmsGuardObserver;
  /** Ids for audit events, ordered as they are made (see audit-ids.ts). */
  readonly newAuditId: (at: EpochMs) => string;
  /** Seals and opens TOTP secrets under the factor key. */
  readonly secretBox: SecretBox;
  readonly recoveryCodes: RecoveryCodeHasher;
  /** Hashes the email or phone a rate-limit key names (see throttling/limit-subject.ts). */
  readonly limitSubject: LimitSubject;
  /** Keys device fingerprints before they reach the store. */
  readonly fingerprints: FingerprintHasher;
  /** Awaited between the slices of a long computation (see `GatehouseDeps.pause`). */
  readonly pause: () => Promise<void>;
  readonly ipLocator: IpLocator;
  readonly userAgentParser: UserAgentParser;
  /** Inside a unit of work: its audit events, appended together just before it commits (see `inTransaction`). */
  readonly pendingAudit?: AuditEvent[];
}

/** Seals and opens factor secrets under the factor key (factors/secret-box.ts). */
export interface SecretBox {
  seal(plaintext: string, boundTo: string): string;
  /** null when the box was sealed under another key, bound to another id, or altered. */
  open(sealed: string, boundTo: string): string | null;
}

/** The keyed hash recovery codes are stored and looked up by (factors/recovery-codes/recovery-codes.ts). */
export interface RecoveryCodeHasher {
  hash(code: string): string;
}

/** The keyed hash a limit key holds in place of `value` (an email, a phone, a network; throttling/limit-subject.ts). */
export type LimitSubject = (value: string) => string;

/** Keys device fingerprints (devices/fingerprint-hash.ts). */
export interface FingerprintHasher {
  /** Hex HMAC-SHA256 of the fingerprint: what the device store keeps and looks up by. */
  hash(fingerprint: string): string;
  /**
   * The hash of `password-login`, the spec's fingerprint for every client that sends none: that device is
   * everyone's, so it is never trusted nor known (docs/decisions/where-the-spec-is-silent.md).
   */
  readonly sharedHash: string;
}

/** Runs password hashes a bounded number at a time, in one lane per client (passwords/hash-queue.ts). */
export interface HashQueue {
  run<T>(lane: string, task: () => Promise<T>): Promise<T>;
}

/** Why a send was refused before it went out: the label of `gatehouse_sms_refusals_total`. */
export type SmsRefusalReason = "country_not_allowed" | "number_type" | "prefix_velocity" | "country_velocity" | "conversion_breaker";

/** Told of every SMS send the guard refuses and of every breaker that trips (sms-guard/). */
export interface SmsGuardObserver {
  refused(reason: SmsRefusalReason): void;
  /** A breaker opened: sends to `key` are refused until `openUntil`. */
  breakerTripped(trip: {
    readonly scope: SmsBreakerScope;
    readonly key: string;
    readonly sent: number;
    readonly verified: number;
    readonly openUntil: EpochMs;
  }): void;
}
