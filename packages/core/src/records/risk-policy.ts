import { invalidArgument } from "../errors.ts";

/** `off`: nothing scored; `audit`: scored and recorded, nothing changed; `enforce`: the decision applies. */
export type RiskMode = "off" | "audit" | "enforce";

/** Ordered weakest first: the engine only ever raises what the MFA policy asks. */
export const RISK_DECISIONS = ["allow", "mfa", "phishing_resistant", "block"] as const;
export type RiskDecision = (typeof RISK_DECISIONS)[number];

export interface RiskThresholds {
  /** A score at or above it asks for a second factor. */
  readonly mfa: number;
  /** At or above it, a phishing-resistant factor (a passkey); null: never by score. */
  readonly phishingResistant: number | null;
  /** At or above it, the sign-in is refused (`risk_blocked`); null: never by score. */
  readonly block: number | null;
}

export interface RiskPolicy {
  readonly mode: RiskMode;
  readonly thresholds: RiskThresholds;
  /** Geo-fence: when not empty, a sign-in from any other country (or an unknown one) is blocked. */
  readonly allowedCountries: readonly string[];
  readonly deniedCountries: readonly string[];
  readonly deniedAsns: readonly number[];
  /** Email the owner after a sign-in from a country, or on a device, they had not used. */
  readonly notifyNewLocation: boolean;
  readonly notifyNewDevice: boolean;
}

/**
 * The default: scored and recorded only. The thresholds are the ones `gatehouse risk evaluate` measured on
 * the generated trace (docs/risk.md): a score of 2 is 100 to 1 for an attacker.
 */
export const DEFAULT_RISK_POLICY: RiskPolicy = {
  mode: "audit",
  thresholds: { mfa: 2, phishingResistant: null, block: null },
  allowedCountries: [],
  deniedCountries: [],
  deniedAsns: [],
  notifyNewLocation: false,
  notifyNewDevice: false,
};

/** The stronger of two decisions. */
export function strongerDecision(a: RiskDecision, b: RiskDecision): RiskDecision {
  return RISK_DECISIONS.indexOf(a) >= RISK_DECISIONS.indexOf(b) ? a : b;
}

/** What a score alone asks for under the thresholds. */
export function decisionForScore(score: number, thresholds: RiskThresholds): RiskDecision {
  if (thresholds.block !== null && score >= thresholds.block) return "block";
  if (thresholds.phishingResistant !== null && score >= thresholds.phishingResistant) return "phishing_resistant";
  return score >= thresholds.mfa ? "mfa" : "allow";
}

const COUNTRY = /^[A-Z]{2}$/;

/** The policy in a JSON patch's snake_case form (`gatehouse risk policy set`, the admin RPC), validated whole. */
export function riskPolicyFromJson(json: unknown, base: RiskPolicy = DEFAULT_RISK_POLICY): RiskPolicy {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalidArgument("risk_policy", "must be a JSON object");
  const input = json as Record<string, unknown>;
  const violations: string[] = [];
  const known = new Set(["mode", "thresholds", "allowed_countries", "denied_countries", "denied_asns", "notify_new_location", "notify_new_device"]);
  for (const key of Object.keys(input)) if (!known.has(key)) violations.push(`unknown field ${key}`);

  const mode = input.mode ?? base.mode;
  if (mode !== "off" && mode !== "audit" && mode !== "enforce") violations.push('mode must be "off", "audit" or "enforce"');

  const countries = (field: string, fallback: readonly string[]): readonly string[] => {
    const value = input[field];
    if (value === undefined) return fallback;
    if (!Array.isArray(value) || !value.every((each) => typeof each === "string" && COUNTRY.test(each.toUpperCase()))) {
      violations.push(`${field} must be a list of two-letter country codes`);
      return fallback;
    }
    return [...new Set(value.map((each: string) => each.toUpperCase()))];
  };
  const allowedCountries = countries("allowed_countries", base.allowedCountries);
  const deniedCountries = countries("denied_countries", base.deniedCountries);

  let deniedAsns = base.deniedAsns;
  if (input.denied_asns !== undefined) {
    const value = input.denied_asns;
    if (!Array.isArray(value) || !value.every((each) => Number.isInteger(each) && each > 0 && each < 2 ** 32))
      violations.push("denied_asns must be a list of AS numbers");
    else deniedAsns = [...new Set(value as number[])];
  }

  const flag = (field: string, fallback: boolean): boolean => {
    const value = input[field];
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") violations.push(`${field} must be true or false`);
    return value === true;
  };
  const notifyNewLocation = flag("notify_new_location", base.notifyNewLocation);
  const notifyNewDevice = flag("notify_new_device", base.notifyNewDevice);

  let thresholds = base.thresholds;
  if (input.thresholds !== undefined) {
    const raw = input.thresholds;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) violations.push("thresholds must be an object");
    else {
      const given = raw as Record<string, unknown>;
      const threshold = (field: string, fallback: number | null, nullable: boolean): number | null => {
        const value = given[field];
        if (value === undefined) return fallback;
        if (value === null && nullable) return null;
        if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 100) {
          violations.push(`thresholds.${field} must be a number from 0 to 100${nullable ? " or null" : ""}`);
          return fallback;
        }
        return value;
      };
      for (const key of Object.keys(given)) if (!["mfa", "phishing_resistant", "block"].includes(key)) violations.push(`unknown field thresholds.${key}`);
      thresholds = {
        mfa: threshold("mfa", base.thresholds.mfa, false)!,
        phishingResistant: threshold("phishing_resistant", base.thresholds.phishingResistant, true),
        block: threshold("block", base.thresholds.block, true),
      };
      const ordered = [thresholds.mfa, thresholds.phishingResistant, thresholds.block].filter((each) => each !== null);
      if (ordered.some((each, index) => index > 0 && each < ordered[index - 1]!)) violations.push("thresholds must rise: mfa ≤ phishing_resistant ≤ block");
    }
  }
  if (violations.length > 0) throw invalidArgument("risk_policy", "is not valid", violations);
  return { mode: mode as RiskMode, thresholds, allowedCountries, deniedCountries, deniedAsns, notifyNewLocation, notifyNewDevice };
}

export function riskPolicyToJson(policy: RiskPolicy) {
  return {
    mode: policy.mode,
    thresholds: { mfa: policy.thresholds.mfa, phishing_resistant: policy.thresholds.phishingResistant, block: policy.thresholds.block },
    allowed_countries: policy.allowedCountries,
    denied_countries: policy.deniedCountries,
    denied_asns: policy.deniedAsns,
    notify_new_location: policy.notifyNewLocation,
    notify_new_device: policy.notifyNewDevice,
  };
}
