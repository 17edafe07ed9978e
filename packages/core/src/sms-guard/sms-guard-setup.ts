/**
 * What the composition root gives the SMS guard (sms-guard.ts): an observer of its refusals and trips, and
 * the check of its breaker settings. Apart from the guard, so that building a context imports no use case.
 */
import type { SmsBreakerScope } from "../audit/events.ts";
import type { SmsBreakerConfig } from "../config.ts";
import type { EpochMs } from "../model.ts";

/** Why a send was refused before it went out: the label of `gatehouse_sms_refusals_total`. */
export type SmsRefusalReason = "country_not_allowed" | "number_type" | "prefix_velocity" | "country_velocity" | "conversion_breaker";

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

export const IGNORE_SMS_GUARD: SmsGuardObserver = { refused: () => undefined, breakerTripped: () => undefined };

export function checkSmsBreakerConfig(config: SmsBreakerConfig): void {
  const { windowMs, minConversion, minSendsPerPrefix, minSendsPerCountry, cooldownMs } = config;
  const positive = [windowMs, minSendsPerPrefix, minSendsPerCountry, cooldownMs].every((value) => Number.isInteger(value) && value >= 1);
  if (!positive || !(minConversion >= 0 && minConversion <= 1)) {
    throw new RangeError("smsBreaker needs whole windowMs, cooldownMs and minimum sends ≥ 1, and a minConversion from 0 to 1");
  }
}
