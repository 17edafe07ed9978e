import { isPhoneRegion, SYSTEM_ACTOR, type Gatehouse, type SmsGuardObserver } from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

/**
 * The operator hears of every conversion breaker that trips (a warning in the log, whatever the
 * metrics); `metrics` also counts refusals by reason. A prefix is a range of 10,000 numbers, not
 * anyone's phone: the line names it so the operator can look at the range.
 */
export function smsGuardObserver(logger: Logger, metrics: SmsGuardObserver | undefined): SmsGuardObserver {
  return {
    refused: (reason) => metrics?.refused(reason),
    breakerTripped: (trip) => {
      metrics?.breakerTripped(trip);
      logger.warn(
        { scope: trip.scope, key: trip.key, sent: trip.sent, verified: trip.verified, openUntil: new Date(trip.openUntil).toISOString() },
        "SMS conversion breaker tripped: codes sent there are not being entered (SMS pumping?); sends to it are refused until openUntil",
      );
    },
  };
}

/**
 * Starts loading the phone metadata in the background: every OTP send classifies its number inside
 * its unit of work, and the first one would otherwise hold its transaction open while the metadata loads.
 */
export function warmPhoneMetadata(logger: Logger): void {
  isPhoneRegion("US").catch((error: unknown) => logger.error({ err: error }, "phone metadata failed to load"));
}

/** In production, a platform that sends codes to every country is told to name the ones it serves. */
export async function warnIfEveryCountryAllowed(config: ServerConfig, gatehouse: Gatehouse, logger: Logger): Promise<void> {
  if (config.appEnv !== "production") return;
  const policy = await gatehouse.admin.getSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null });
  if (policy.allowedCountries.length > 0) return;
  logger.warn(
    { suggestion: `gatehouse sms policy --json '{"allowed_countries": ["US", "CA", "GB"]}'` },
    "SMS codes may be sent to every country: set the platform's sms_allowed_countries to the countries your users are in (docs/sms-fraud.md)",
  );
}
