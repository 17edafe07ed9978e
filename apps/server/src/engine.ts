import type { QueryTimingHook } from "@gatehouse/adapters-sqlite";
import {
  createGatehouse,
  cryptoRandom,
  decorateStores,
  systemClock,
  type Clock,
  type Gatehouse,
  type HashQueueObserver,
  type RateLimiter,
  type SmsGuardObserver,
  type Stores,
} from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { smsGuardObserver } from "./sms-guard-log.ts";
import { createSms, type SmsResultObserver, type SmsSetup } from "./sms.ts";
import { openStorage, type OpenStorage } from "./storage.ts";

const HOUR_MS = 3_600_000;

/** Hooks the server's metrics attach (METRICS_PORT); the CLI and the bench pass none. */
export interface EngineInstruments {
  readonly onQuery?: QueryTimingHook | undefined;
  readonly onSmsResult?: SmsResultObserver | undefined;
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
  /** Closes the database; the caller stops using `gatehouse` first. */
  close(): Promise<void>;
}

/** The composition root: the one place that picks implementations for the core's ports. Migrates the database. */
export async function createEngine(config: ServerConfig, logger: Logger, clock: Clock = systemClock, instruments: EngineInstruments = {}): Promise<Engine> {
  for (const warning of config.warnings) logger.warn(warning);
  const storage = await openStorage(config.databaseUrl, instruments.onQuery, config.sqliteBackgroundCheckpoint);
  if (storage.applied.length > 0) logger.info({ migrations: storage.applied }, "migrations applied");
  const sms = createSms(config, clock, logger, instruments.onSmsResult);
  const { wrapRateLimiter } = instruments;
  const stores =
    wrapRateLimiter === undefined ? storage.stores : decorateStores(storage.stores, (ports) => ({ rateLimiter: wrapRateLimiter(ports.rateLimiter) }));
  const gatehouse = createGatehouse({
    stores,
    sms: sms.sender,
    clock,
    random: cryptoRandom,
    ...(instruments.hashQueue === undefined ? {} : { hashQueueObserver: instruments.hashQueue }),
    smsGuardObserver: smsGuardObserver(logger, instruments.smsGuard),
    config: {
      otpHashKey: config.otpHashKey,
      password: config.passwordHash.argon2id,
      passwordHashConcurrency: config.passwordHash.concurrency,
      passwordHashQueueLimit: config.passwordHash.queueLimit,
      challengeTtlMs: config.challengeTtlMs,
      refreshReuseIntervalMs: config.refreshReuseIntervalMs,
      otpResendIntervalMs: config.resendIntervalMs,
      phoneDefaultRegion: config.phoneDefaultRegion,
      otpSendsPerPrefix: [{ limit: config.smsGuard.sendsPerPrefixPerHour, windowMs: HOUR_MS }],
      otpSendsPerCountry: { limit: config.smsGuard.sendsPerCountryPerHour, windowMs: HOUR_MS },
      smsBreaker: config.smsGuard.breaker,
    },
  });
  return { gatehouse, storage, stores, sms, close: () => storage.close() };
}
