import { createAuditIdSource } from "./audit/audit-ids.ts";
import { createFingerprintHasher, type FingerprintHasher } from "./devices/fingerprint-hash.ts";
import type { AuditEvent } from "./audit/events.ts";
import { DEFAULT_CONFIG, type GatehouseConfig } from "./config.ts";
import { createRecoveryCodeHasher, type RecoveryCodeHasher } from "./factors/recovery-codes/recovery-codes.ts";
import { createSecretBox, developmentFactorKey, type SecretBox } from "./factors/secret-box.ts";
import { createHashQueue, type HashQueue, type HashQueueObserver } from "./passwords/hash-queue.ts";
import { createKdfPasswordHasher } from "./passwords/kdf-password-hasher.ts";
import type { EpochMs } from "./model.ts";
import type { Clock, EmailSender, IpLocator, PasswordHasher, RandomSource, SmsSender, Stores, UserAgentParser } from "./ports.ts";
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
  /** Country, network and place of a client address, for the risk engine. Defaults to knowing nothing. */
  readonly ipLocator?: IpLocator;
  /** Browser, OS and device type of a user agent, for the risk engine. Defaults to knowing nothing. */
  readonly userAgentParser?: UserAgentParser;
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
  readonly ipLocator: IpLocator;
  readonly userAgentParser: UserAgentParser;
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
    ipLocator: deps.ipLocator ?? KNOWS_NO_IP,
    userAgentParser: deps.userAgentParser ?? KNOWS_NO_USER_AGENT,
  };
}

const KNOWS_NO_IP: IpLocator = { locate: () => ({ country: null, asn: null, location: null }) };
const KNOWS_NO_USER_AGENT: UserAgentParser = { parse: () => ({ browser: null, os: null, deviceType: null }) };

/** A macrotask, so the timers and I/O waiting behind a long piece of work run before its next slice. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
