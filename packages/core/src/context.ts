import { DEFAULT_CONFIG, type GatehouseConfig } from "./config.ts";
import type { Clock, RandomSource, SmsSender, Stores } from "./ports.ts";

/** What the composition root hands the core: every port, and optional overrides of the defaults. */
export interface GatehouseDeps {
  readonly stores: Stores;
  readonly sms: SmsSender;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config?: Partial<GatehouseConfig>;
}

export interface Context {
  readonly stores: Stores;
  readonly sms: SmsSender;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: GatehouseConfig;
}

export function createContext(deps: GatehouseDeps): Context {
  return { stores: deps.stores, sms: deps.sms, clock: deps.clock, random: deps.random, config: { ...DEFAULT_CONFIG, ...deps.config } };
}
