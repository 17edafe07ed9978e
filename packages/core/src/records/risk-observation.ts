import type { EpochMs } from "../model.ts";

/** A point on the globe, in degrees; known only where city-level IP data is configured. */
export interface GeoPoint {
  readonly latitude: number;
  readonly longitude: number;
}

/**
 * What one sign-in shows the risk engine, every field computed in-process from the request (no network
 * call): the address and what the offline IP data says of it, the user agent and what it parses to, and
 * the round-trip time the client measured. Null where it is not known.
 */
export interface RiskObservation {
  readonly at: EpochMs;
  readonly ip: string;
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string | null;
  readonly asn: number | null;
  readonly location: GeoPoint | null;
  readonly userAgent: string;
  /** Browser name and major version, such as "Chrome 131". */
  readonly browser: string | null;
  /** OS name and version, such as "Windows 10". */
  readonly os: string | null;
  /** desktop, mobile, tablet, tv, bot or null. */
  readonly deviceType: string | null;
  readonly rttMs: number | null;
}

/**
 * The features the score reads, as hierarchies from the coarsest level to the finest (Freeman et al., NDSS
 * 2016): a value is judged against what the user has shown under its parent, so a new address in a known
 * network counts for less than a new network, and a new network in a new country counts once, at the country.
 */
export const FEATURE_CHAINS = {
  ip: ["country", "asn", "ip"],
  ua: ["device_type", "os", "browser", "user_agent"],
  rtt: ["rtt"],
} as const;

export type ChainName = keyof typeof FEATURE_CHAINS;
export type FeatureName = (typeof FEATURE_CHAINS)[ChainName][number];

/** Width of a round-trip-time bucket: jitter within one is the same network path. */
export const RTT_BUCKET_MS = 25;

const UNKNOWN = "?";

/** The observation's value at each level of each chain, coarsest first. */
export function featureValues(observation: RiskObservation): Readonly<Record<ChainName, readonly string[]>> {
  const known = (value: string | number | null) => (value === null || value === "" ? UNKNOWN : String(value));
  return {
    ip: [known(observation.country), known(observation.asn), observation.ip],
    ua: [known(observation.deviceType), known(observation.os), known(observation.browser), observation.userAgent],
    rtt: [observation.rttMs === null ? UNKNOWN : String(Math.floor(observation.rttMs / RTT_BUCKET_MS))],
  };
}

/**
 * The observation's feature values as one text, the same for every sign-in that shows the same values whatever its
 * time: a user's history is read grouped by it (`RiskStore.signInFeatures`).
 */
export function featureKey(observation: RiskObservation): string {
  return JSON.stringify(featureValues(observation));
}

/** The feature values a `featureKey` holds. */
export function featuresOfKey(key: string): Readonly<Record<ChainName, readonly string[]>> {
  return JSON.parse(key) as Readonly<Record<ChainName, readonly string[]>>;
}
