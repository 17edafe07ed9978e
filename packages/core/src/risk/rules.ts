import type { EpochMs } from "../model.ts";
import type { GeoPoint, RiskObservation } from "../records/risk-observation.ts";
import type { RiskPolicy } from "../records/risk-policy.ts";
import type { RuleHit } from "../records/risk-event.ts";

/** The previous successful sign-in's place and time, for impossible travel. */
export interface PreviousSignIn {
  readonly at: EpochMs;
  readonly location: GeoPoint | null;
  readonly country: string | null;
}

/** Recent failed sign-ins, from the sliding logs the guessing budgets already keep. */
export interface FailureVelocity {
  readonly perIp: number;
  readonly perAsn: number;
  readonly perAccount: number;
}

export interface RuleInput {
  readonly observation: RiskObservation;
  readonly previous: PreviousSignIn | null;
  readonly velocity: FailureVelocity;
  /** Hosting and anonymiser networks (the shipped list plus the operator's). */
  readonly anonymizerAsns: ReadonlySet<number>;
  /** The password is on the common-password list (it was accepted before the list grew, or by an old rule). */
  readonly commonPassword: boolean;
}

/**
 * Faster than an airliner, over more than a city's geo-IP jitter: the two sign-ins cannot both be the owner's
 * (or one came through a proxy, which is worth a second factor too).
 */
export const IMPOSSIBLE_TRAVEL = { minKm: 500, maxKmPerHour: 1_000 } as const;

/** Failures in the last hour past which the source looks like credential stuffing. */
export const FAILURE_VELOCITY_LIMITS: FailureVelocity = { perIp: 20, perAsn: 200, perAccount: 5 };

const EARTH_RADIUS_KM = 6_371;

export function distanceKm(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The hard rules, in the order an admin reads them. Pure. */
export function evaluateRules(policy: RiskPolicy, input: RuleInput): readonly RuleHit[] {
  const { observation, previous, velocity } = input;
  const hits: RuleHit[] = [];
  const country = observation.country;
  if (policy.allowedCountries.length > 0 && (country === null || !policy.allowedCountries.includes(country))) {
    hits.push({ code: "country_not_allowed", decision: "block", detail: `country ${country ?? "unknown"} is outside ${policy.allowedCountries.join(", ")}` });
  }
  if (country !== null && policy.deniedCountries.includes(country))
    hits.push({ code: "country_denied", decision: "block", detail: `country ${country} is denied` });
  if (observation.asn !== null && policy.deniedAsns.includes(observation.asn))
    hits.push({ code: "asn_denied", decision: "block", detail: `AS${observation.asn} is denied` });
  if (observation.asn !== null && input.anonymizerAsns.has(observation.asn)) {
    hits.push({ code: "anonymizer_network", decision: "mfa", detail: `AS${observation.asn} is a hosting or anonymiser network` });
  }
  if (previous !== null && previous.location !== null && observation.location !== null) {
    const km = distanceKm(previous.location, observation.location);
    const hours = Math.max(observation.at - previous.at, 1) / 3_600_000;
    if (km > IMPOSSIBLE_TRAVEL.minKm && km / hours > IMPOSSIBLE_TRAVEL.maxKmPerHour) {
      hits.push({ code: "impossible_travel", decision: "mfa", detail: `${Math.round(km)} km in ${hours.toFixed(1)} h since the previous sign-in` });
    }
  }
  if (velocity.perIp >= FAILURE_VELOCITY_LIMITS.perIp)
    hits.push({ code: "ip_failure_velocity", decision: "mfa", detail: `${velocity.perIp} failed sign-ins from this address in the last hour` });
  if (velocity.perAsn >= FAILURE_VELOCITY_LIMITS.perAsn)
    hits.push({ code: "asn_failure_velocity", decision: "mfa", detail: `${velocity.perAsn} failed sign-ins from this network in the last hour` });
  if (velocity.perAccount >= FAILURE_VELOCITY_LIMITS.perAccount) {
    hits.push({ code: "account_failure_velocity", decision: "mfa", detail: `${velocity.perAccount} failed sign-ins to this account in the last hour` });
  }
  if (input.commonPassword) hits.push({ code: "common_password", decision: "mfa", detail: "the password is on the common-password list" });
  return hits;
}
