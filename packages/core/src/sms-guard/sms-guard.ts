/**
 * The checks every OTP send passes before it is charged: the destination policy (sms-destination.ts)
 * and the conversion breaker. Pumped codes are never entered, so a prefix or region whose codes are
 * sent but not verified is being pumped: its sends stop for a cool-down and the operator is told.
 * Counts live in the store (`SmsTrafficStore`), so every replica sees the same traffic.
 */
import { recordAudit, recordRefusal, type AuditSubject } from "../audit/record.ts";
import type { RateLimitName, SmsBreakerScope } from "../records/audit-events.ts";
import type { Context, SmsRefusalReason } from "../context.ts";
import { rateLimited } from "../errors.ts";
import type { EpochMs } from "../model.ts";
import type { SmsTrafficReading } from "../ports.ts";
import { maskPhone } from "../phone.ts";
import { effectiveSettings } from "../settings.ts";
import { classifyDestination, destinationRefusal, type SmsDestination } from "./sms-destination.ts";

/** Counts are kept per 5 minutes: the breaker's window slides in these steps. */
export const SMS_TRAFFIC_BUCKET_MS = 5 * 60_000;

export const bucketOf = (at: EpochMs): EpochMs => Math.floor(at / SMS_TRAFFIC_BUCKET_MS) * SMS_TRAFFIC_BUCKET_MS;

export const smsTrafficKeys = (destination: SmsDestination): [country: string, prefix: string] => [
  `country:${destination.country}`,
  `prefix:${destination.prefix}`,
];

/** The rate-limit names of the platform-wide destination limits, and the refusal reasons they report. */
export const VELOCITY_REFUSALS: Partial<Record<RateLimitName, SmsRefusalReason>> = {
  otp_sends_per_prefix: "prefix_velocity",
};

/**
 * Inside the unit of work that prepares a challenge: refuses a destination the org's or the platform's
 * policy does not allow (`invalid_argument`, field `phone`), whose breaker is open or whose region sent
 * its hourly codes already (`rate_limited`), and trips a breaker whose conversion fell below the
 * threshold. Returns the classified destination.
 */
export async function guardDestination(tx: Context, subject: AuditSubject & { readonly orgId: string }, phone: string): Promise<SmsDestination> {
  const destination = await classifyDestination(phone);
  const { platform, org } = effectiveSettings(await tx.stores.settings.getForOrg(subject.orgId));
  const refusal = destinationRefusal(destination, platform, org);
  if (refusal !== null) {
    tx.smsGuardObserver.refused(refusal.reason);
    await recordAudit(tx, "sms.destination_refused", subject, { reason: refusal.reason, country: destination.country, phoneMask: maskPhone(phone) });
    throw refusal.error;
  }
  const breakerReadings = await checkBreakers(tx, subject, destination);
  await checkCountryVelocity(tx, subject, destination, breakerReadings[0]);
  return destination;
}

/** `breakerReading`: the region's counts over the breaker's window, which are the velocity's when both windows are one length (the defaults). */
async function checkCountryVelocity(
  tx: Context,
  subject: AuditSubject,
  destination: SmsDestination,
  breakerReading: SmsTrafficReading | undefined,
): Promise<void> {
  const { limit, windowMs } = tx.config.otpSendsPerCountry;
  const now = tx.clock.now();
  const from = bucketOf(now - windowMs);
  const [country] =
    windowMs === tx.config.smsBreaker.windowMs ? [breakerReading] : await tx.stores.smsTraffic.read([smsTrafficKeys(destination)[0]], from, now);
  if ((country?.sent ?? 0) < limit) return;
  tx.smsGuardObserver.refused("country_velocity");
  throw await recordRefusal(tx, subject, "otp_sends_per_country", rateLimited((from + SMS_TRAFFIC_BUCKET_MS + windowMs - now) / 1000));
}

async function checkBreakers(tx: Context, subject: AuditSubject, destination: SmsDestination): Promise<SmsTrafficReading[]> {
  const breaker = tx.config.smsBreaker;
  const now = tx.clock.now();
  const keys = smsTrafficKeys(destination);
  const readings = await tx.stores.smsTraffic.read(keys, bucketOf(now - breaker.windowMs), now);
  let openUntil = Math.max(0, ...readings.map((reading) => reading.openUntil ?? 0));
  if (openUntil <= now) {
    for (const [i, reading] of readings.entries()) {
      const scope: SmsBreakerScope = i === 0 ? "country" : "prefix";
      const minSends = scope === "country" ? breaker.minSendsPerCountry : breaker.minSendsPerPrefix;
      if (reading.sent < minSends || reading.verified >= reading.sent * breaker.minConversion) continue;
      const until = now + breaker.cooldownMs;
      if (await tx.stores.smsTraffic.trip(reading.key, until, now)) {
        const trip = { scope, key: reading.key.slice(scope.length + 1), sent: reading.sent, verified: reading.verified, openUntil: until };
        tx.smsGuardObserver.breakerTripped(trip);
        await recordAudit(tx, "sms.breaker_tripped", { actor: { kind: "system" } }, trip);
      }
      openUntil = Math.max(openUntil, until);
    }
  }
  if (openUntil > now) {
    tx.smsGuardObserver.refused("conversion_breaker");
    throw await recordRefusal(tx, subject, "sms_conversion_breaker", rateLimited((openUntil - now) / 1000));
  }
  return readings;
}

/** After a right code: counts the verification for the destination's region and prefix. */
export async function countVerified(tx: Context, phone: string): Promise<void> {
  const destination = await classifyDestination(phone);
  await tx.stores.smsTraffic.add(smsTrafficKeys(destination), bucketOf(tx.clock.now()), 0, 1);
}
