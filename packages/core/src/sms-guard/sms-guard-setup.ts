/**
 * What assembling a context needs of the SMS guard (sms-guard.ts): the observer that stands in when none is
 * given, and the check of its breaker settings.
 */
import type { SmsBreakerConfig } from "../config.ts";
import type { SmsGuardObserver } from "../context.ts";

export const IGNORE_SMS_GUARD: SmsGuardObserver = { refused: () => undefined, breakerTripped: () => undefined };

export function checkSmsBreakerConfig(config: SmsBreakerConfig): void {
  const { windowMs, minConversion, minSendsPerPrefix, minSendsPerCountry, cooldownMs } = config;
  const positive = [windowMs, minSendsPerPrefix, minSendsPerCountry, cooldownMs].every((value) => Number.isInteger(value) && value >= 1);
  if (!positive || !(minConversion >= 0 && minConversion <= 1)) {
    throw new RangeError("smsBreaker needs whole windowMs, cooldownMs and minimum sends ≥ 1, and a minConversion from 0 to 1");
  }
}
