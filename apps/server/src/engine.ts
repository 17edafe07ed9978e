import { createGatehouse, cryptoRandom, systemClock, type Clock, type Gatehouse } from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { createSms, type SmsSetup } from "./sms.ts";
import { openStorage, type OpenStorage } from "./storage.ts";

/** The core with its ports picked from the configuration: what the server, the CLI and the bench all run. */
export interface Engine {
  readonly gatehouse: Gatehouse;
  readonly storage: OpenStorage;
  readonly sms: SmsSetup;
  /** Closes the database; the caller stops using `gatehouse` first. */
  close(): Promise<void>;
}

/** The composition root: the one place that picks implementations for the core's ports. Migrates the database. */
export async function createEngine(config: ServerConfig, logger: Logger, clock: Clock = systemClock): Promise<Engine> {
  for (const warning of config.warnings) logger.warn(warning);
  const storage = await openStorage(config.databaseUrl);
  if (storage.applied.length > 0) logger.info({ migrations: storage.applied }, "migrations applied");
  const sms = createSms(config, clock, logger);
  const gatehouse = createGatehouse({
    stores: storage.stores,
    sms: sms.sender,
    clock,
    random: cryptoRandom,
    config: {
      otpHashKey: config.otpHashKey,
      password: config.passwordHash.argon2id,
      passwordHashConcurrency: config.passwordHash.concurrency,
      passwordHashQueueLimit: config.passwordHash.queueLimit,
      challengeTtlMs: config.challengeTtlMs,
    },
  });
  return { gatehouse, storage, sms, close: () => storage.close() };
}
