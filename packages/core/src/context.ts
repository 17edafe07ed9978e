import { createAuditIdSource } from "./audit/audit-ids.ts";
import { createFingerprintHasher, type FingerprintHasher } from "./devices/fingerprint-hash.ts";
import type { AuditEvent } from "./audit/events.ts";
import { DEFAULT_CONFIG, type GatehouseConfig } from "./config.ts";
import { createRecoveryCodeHasher, type RecoveryCodeHasher } from "./factors/recovery-codes/recovery-codes.ts";
import { createSecretBox, developmentFactorKey, type SecretBox } from "./factors/secret-box.ts";
import { createHashQueue, type HashQueue, type HashQueueObserver } from "./passwords/hash-queue.ts";
import { createKdfPasswordHasher } from "./passwords/kdf-password-hasher.ts";
import type { EpochMs } from "./model.ts";
import type { Clock, EmailSender, PasswordHasher, RandomSource, SmsSender, Stores } from "./ports.ts";
import { looksLikePhoneRegion } from "./phone.ts";
import { createLimitSubject, type LimitSubject } from "./throttling/limit-subject.ts";
import { checkSmsBreakerConfig, IGNORE_SMS_GUARD, type SmsGuardObserver } from "./sms-guard/sms-guard-setup.ts";

/** What the composition root hands the core: every port, and optional overrides of the defaults. */
export interface GatehouseDeps {
  readonly stores: Stores;
  readonly sms: SmsSender;
  /** Delivers verification, reset and invitation links. */
  readonly email: EmailSender;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config?: Partial<GatehouseConfig>;
  /** Defaults to Argon2id from node:crypto with `config.password`. */
  readonly passwordHasher?: PasswordHasher;
  /** Told of the password-hash queue's depth and of each hash's wait and run time (metrics). */
  readonly hashQueueObserver?: HashQueueObserver;
  /**
   * Awaited between the slices of a long computation (validating a large browser policy before it is saved,
   * compiling it after), so that other requests run meanwhile. Defaults to a zero-delay timer.
   */
  readonly pause?: () => Promise<void>;
  /** Told of every SMS send refused by the destination guard and of every breaker that trips (metrics, the operator's log). */
  readonly smsGuardObserver?: SmsGuardObserver;
}

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
  /** Inside a unit of work: its audit events, appended together just before it commits (see `inTransaction`). */
  readonly pendingAudit?: AuditEvent[];
}

export function createContext(deps: GatehouseDeps): Context {
  const config = { ...DEFAULT_CONFIG, ...deps.config };
  if (config.phoneDefaultRegion !== undefined && !looksLikePhoneRegion(config.phoneDefaultRegion)) {
    throw new RangeError(`phoneDefaultRegion ${JSON.stringify(config.phoneDefaultRegion)} is not an upper-case ISO 3166-1 alpha-2 region`);
  }
  if (!/^https?:\/\/[^/?#]+/.test(config.publicUrl) || URL.parse(config.publicUrl) === null) {
    throw new RangeError(`publicUrl ${JSON.stringify(config.publicUrl)} is not an http:// or https:// URL`);
  }
  // A window's log is keyed by its length, so two windows of one length would be one log (consumeMany refuses the pair).
  for (const name of ["otpSendsPerPhone", "otpSendsPerUser", "otpSendsPerStepUpSession", "otpSendsPerPrefix"] as const) {
    const lengths = config[name].map((window) => window.windowMs);
    if (new Set(lengths).size < lengths.length) throw new RangeError(`${name} has two windows of the same windowMs`);
  }
  checkSmsBreakerConfig(config.smsBreaker);
  const factorKey = config.factorEncryptionKey ?? developmentFactorKey();
  return {
    stores: deps.stores,
    sms: deps.sms,
    email: deps.email,
    clock: deps.clock,
    random: deps.random,
    config,
    passwordHasher: deps.passwordHasher ?? createKdfPasswordHasher(config.password, deps.random),
    hashQueue: createHashQueue({
      concurrency: config.passwordHashConcurrency,
      queueLimit: config.passwordHashQueueLimit,
      clock: deps.clock,
      observer: deps.hashQueueObserver,
    }),
    smsGuardObserver: deps.smsGuardObserver ?? IGNORE_SMS_GUARD,
    newAuditId: createAuditIdSource(deps.random),
    secretBox: createSecretBox(factorKey, deps.random),
    recoveryCodes: createRecoveryCodeHasher(factorKey),
    limitSubject: createLimitSubject(factorKey),
    fingerprints: createFingerprintHasher(factorKey),
    pause: deps.pause ?? yieldToEventLoop,
  };
}

/** A macrotask, so the timers and I/O waiting behind a long piece of work run before its next slice. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
