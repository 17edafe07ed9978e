import type { QueryTimingHook, StorageFault } from "@gatehouse/adapters-sqlite";
import { ipLocatorOver, openIpData } from "./risk/ip-data.ts";
import { parseUserAgent } from "./risk/user-agent.ts";
import {
  anonymizerAsns,
  createGatehouse,
  cryptoRandom,
  decorateStores,
  deviceFingerprintHash,
  systemClock,
  type Clock,
  type Gatehouse,
  type HashQueueObserver,
  type RateLimiter,
  type SmsGuardObserver,
  type Stores,
} from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import { createEmail, type EmailResultObserver, type EmailSetup } from "./email.ts";
import type { Logger } from "./logger.ts";
import { smsGuardObserver } from "./sms-guard-log.ts";
import { createSms, type SmsResultObserver, type SmsSetup } from "./sms.ts";
import { describeDatabase, openStorage, type OpenStorage } from "./storage.ts";
import { storageFaultLog } from "./storage-fault-log.ts";

const HOUR_MS = 3_600_000;

/** Hooks the server's metrics attach (METRICS_PORT); the CLI and the bench pass none. */
export interface EngineInstruments {
  readonly onQuery?: QueryTimingHook | undefined;
  /** Every storage fault, for the database-error metric (the log hears of them anyway). */
  readonly onStorageFault?: ((fault: StorageFault) => void) | undefined;
  readonly onSmsResult?: SmsResultObserver | undefined;
  readonly onEmailResult?: EmailResultObserver | undefined;
  readonly wrapRateLimiter?: ((limiter: RateLimiter) => RateLimiter) | undefined;
  readonly hashQueue?: HashQueueObserver | undefined;
  readonly smsGuard?: SmsGuardObserver | undefined;
}

/** The core with its ports picked from the configuration: what the server, the CLI and the bench all run. */
export interface Engine {
  readonly gatehouse: Gatehouse;
  readonly storage: OpenStorage;
  /** The stores the core was given (the rate limiter possibly wrapped by `instruments`). */
  readonly stores: Stores;
  readonly sms: SmsSetup;
  readonly email: EmailSetup;
  /** Closes the database; the caller stops using `gatehouse` first. */
  close(): Promise<void>;
}

/** The composition root: the one place that picks implementations for the core's ports. Migrates the database. */
export async function createEngine(config: ServerConfig, logger: Logger, clock: Clock = systemClock, instruments: EngineInstruments = {}): Promise<Engine> {
  for (const warning of config.warnings) logger.warn(warning);
  const faultLog = storageFaultLog(logger, describeDatabase(config.databaseUrl));
  const { onStorageFault } = instruments;
  const faults =
    onStorageFault === undefined
      ? faultLog
      : {
          fault: (fault: StorageFault) => {
            onStorageFault(fault);
            faultLog.fault(fault);
          },
          recovered: (by: "read" | "write") => faultLog.recovered(by),
        };
  const storage = await openStorage(config.databaseUrl, instruments.onQuery, config.sqliteBackgroundCheckpoint, {
    ...config.databaseTimeouts,
    faults,
    createDirectory: config.databaseCreate,
    hashDeviceFingerprint: deviceFingerprintHash(config.factorEncryptionKey),
  });
  if (storage.applied.length > 0) logger.info({ migrations: storage.applied }, "migrations applied");
  const sms = createSms(config, clock, logger, instruments.onSmsResult);
  const email = createEmail(config.email, clock, logger, instruments.onEmailResult);
  const { wrapRateLimiter } = instruments;
  const stores =
    wrapRateLimiter === undefined ? storage.stores : decorateStores(storage.stores, (ports) => ({ rateLimiter: wrapRateLimiter(ports.rateLimiter) }));
  const gatehouse = createGatehouse({
    stores,
    sms: sms.sender,
    email: email.sender,
    clock,
    random: cryptoRandom,
    ...(instruments.hashQueue === undefined ? {} : { hashQueueObserver: instruments.hashQueue }),
    smsGuardObserver: smsGuardObserver(logger, instruments.smsGuard),
    ipLocator: ipLocatorOver(openIpData(config.risk.ipData)),
    userAgentParser: { parse: parseUserAgent },
    config: {
      riskStoreFullIp: config.risk.storeFullIp,
      riskAnonymizerAsns: anonymizerAsns(config.risk.anonymizerAsns),
      otpHashKey: config.otpHashKey,
      factorEncryptionKey: config.factorEncryptionKey,
      webauthn: config.webauthn,
      password: config.passwordHash.argon2id,
      passwordHashConcurrency: config.passwordHash.concurrency,
      passwordHashQueueLimit: config.passwordHash.queueLimit,
      challengeTtlMs: config.challengeTtlMs,
      sessionMaxAgeMs: config.sessionMaxAgeMs,
      sessionIdleMs: config.sessionIdleMs,
      refreshReuseIntervalMs: config.refreshReuseIntervalMs,
      otpResendIntervalMs: config.resendIntervalMs,
      phoneDefaultRegion: config.phoneDefaultRegion,
      publicUrl: config.email.publicUrl,
      emailVerification: config.email.verification,
      otpSendsPerPrefix: [{ limit: config.smsGuard.sendsPerPrefixPerHour, windowMs: HOUR_MS }],
      otpSendsPerCountry: { limit: config.smsGuard.sendsPerCountryPerHour, windowMs: HOUR_MS },
      smsBreaker: config.smsGuard.breaker,
      introspectionsPerIp: { limit: config.introspectionsPerIpPerMinute, windowMs: 60_000 },
    },
  });
  return { gatehouse, storage, stores, sms, email, close: () => storage.close() };
}
