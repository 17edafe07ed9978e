import { describe, expect, it } from "vitest";
import { appliedRiskDecision, assessRisk } from "../../src/risk/assess.ts";
import { FeatureCounts } from "../../src/risk/feature-counts.ts";
import type { RiskObservation } from "../../src/records/risk-observation.ts";
import {
  decisionForScore,
  DEFAULT_RISK_POLICY,
  riskPolicyFromJson,
  riskPolicyToJson,
  strongerDecision,
  type RiskPolicy,
} from "../../src/records/risk-policy.ts";
import { evaluateRules, type RuleInput } from "../../src/risk/rules.ts";
import { GatehouseError } from "../../src/errors.ts";

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const OSLO = { latitude: 59.91, longitude: 10.75 };
const BERGEN = { latitude: 60.39, longitude: 5.32 };
const NEW_YORK = { latitude: 40.71, longitude: -74.0 };

const observation = (overrides: Partial<RiskObservation> = {}): RiskObservation => ({
  at: T0,
  ip: "81.2.69.10",
  country: "NO",
  asn: 2119,
  location: OSLO,
  userAgent: "ua",
  browser: "Chrome 131",
  os: "Windows 10",
  deviceType: "desktop",
  rttMs: 20,
  ...overrides,
});
const input = (overrides: Partial<RuleInput> = {}): RuleInput => ({
  observation: observation(),
  previous: null,
  velocity: { perIp: 0, perAsn: 0, perAccount: 0 },
  anonymizerAsns: new Set([16509]),
  commonPassword: false,
  ...overrides,
});
const policy = (overrides: Partial<RiskPolicy> = {}): RiskPolicy => ({ ...DEFAULT_RISK_POLICY, ...overrides });
const codes = (p: RiskPolicy, i: RuleInput) => evaluateRules(p, i).map((hit) => `${hit.code}:${hit.decision}`);

describe("evaluateRules", () => {
  it.each([
    ["nothing fires for an ordinary sign-in", policy(), input(), []],
    ["geo-fence: a country outside the allowed list is blocked", policy({ allowedCountries: ["SE"] }), input(), ["country_not_allowed:block"]],
    [
      "geo-fence: an unknown country is outside it",
      policy({ allowedCountries: ["NO"] }),
      input({ observation: observation({ country: null }) }),
      ["country_not_allowed:block"],
    ],
    ["geo-fence: inside it", policy({ allowedCountries: ["NO"] }), input(), []],
    ["a denied country", policy({ deniedCountries: ["NO"] }), input(), ["country_denied:block"]],
    ["a denied network", policy({ deniedAsns: [2119] }), input(), ["asn_denied:block"]],
    ["a hosting network", policy(), input({ observation: observation({ asn: 16509 }) }), ["anonymizer_network:mfa"]],
    ["Oslo to New York in an hour", policy(), input({ previous: { at: T0 - HOUR, location: NEW_YORK, country: "US" } }), ["impossible_travel:mfa"]],
    ["Oslo to New York in a day", policy(), input({ previous: { at: T0 - 24 * HOUR, location: NEW_YORK, country: "US" } }), []],
    ["Bergen to Oslo in a minute: within geo-IP jitter", policy(), input({ previous: { at: T0 - 60_000, location: BERGEN, country: "NO" } }), []],
    [
      "no location: no travel judged",
      policy(),
      input({ observation: observation({ location: null }), previous: { at: T0 - 1, location: NEW_YORK, country: "US" } }),
      [],
    ],
    ["credential stuffing from the address", policy(), input({ velocity: { perIp: 20, perAsn: 0, perAccount: 0 } }), ["ip_failure_velocity:mfa"]],
    ["from the network", policy(), input({ velocity: { perIp: 0, perAsn: 200, perAccount: 0 } }), ["asn_failure_velocity:mfa"]],
    ["against the account", policy(), input({ velocity: { perIp: 0, perAsn: 0, perAccount: 5 } }), ["account_failure_velocity:mfa"]],
    ["a common password", policy(), input({ commonPassword: true }), ["common_password:mfa"]],
  ] as const)("%s", (_name, p, i, expected) => {
    expect(codes(p, i)).toEqual(expected);
  });
});

describe("decisions", () => {
  it.each([
    [0, "allow"],
    [1.99, "allow"],
    [2, "mfa"],
    [4, "phishing_resistant"],
    [6, "block"],
  ] as const)("score %s under mfa 2, phishing-resistant 4, block 6: %s", (score, expected) => {
    expect(decisionForScore(score, { mfa: 2, phishingResistant: 4, block: 6 })).toBe(expected);
  });

  it("takes the stronger of the score and the rules", () => {
    expect(strongerDecision("mfa", "block")).toBe("block");
    expect(strongerDecision("phishing_resistant", "allow")).toBe("phishing_resistant");
    const empty = new FeatureCounts();
    const assessed = assessRisk(policy({ deniedCountries: ["NO"] }), { ...input(), user: empty, platform: empty });
    expect(assessed.decision).toBe("block");
    expect(assessed.rules.map((hit) => hit.code)).toEqual(["country_denied"]);
  });

  it.each([
    ["off", "allow"],
    ["audit", "allow"],
    ["enforce", "block"],
  ] as const)("mode %s applies %s", (mode, expected) => {
    const empty = new FeatureCounts();
    const p = policy({ mode, deniedCountries: ["NO"] });
    expect(appliedRiskDecision(p, assessRisk(p, { ...input(), user: empty, platform: empty }))).toBe(expected);
  });
});

describe("riskPolicyFromJson", () => {
  it("reads the snake_case form and writes it back", () => {
    const json = {
      mode: "enforce",
      thresholds: { mfa: 1.5, phishing_resistant: 3, block: null },
      allowed_countries: ["us", "CA"],
      denied_countries: [],
      denied_asns: [16509],
      notify_new_location: true,
      notify_new_device: false,
    };
    const read = riskPolicyFromJson(json);
    expect(read).toMatchObject({ mode: "enforce", allowedCountries: ["US", "CA"], thresholds: { mfa: 1.5, phishingResistant: 3, block: null } });
    expect(riskPolicyToJson(read)).toEqual({ ...json, allowed_countries: ["US", "CA"] });
  });

  it("keeps what a patch leaves out", () => {
    expect(riskPolicyFromJson({ mode: "off" }, policy({ deniedAsns: [1] }))).toMatchObject({
      mode: "off",
      deniedAsns: [1],
      thresholds: DEFAULT_RISK_POLICY.thresholds,
    });
  });

  it.each([
    ["not an object", [], "must be a JSON object"],
    ["an unknown mode", { mode: "on" }, 'mode must be "off", "audit" or "enforce"'],
    ["an unknown field", { modes: "off" }, "unknown field modes"],
    ["a country that is not two letters", { allowed_countries: ["USA"] }, "allowed_countries must be a list of two-letter country codes"],
    ["an AS number that is not one", { denied_asns: [-1] }, "denied_asns must be a list of AS numbers"],
    ["a threshold out of range", { thresholds: { mfa: -1 } }, "thresholds.mfa must be a number from 0 to 100"],
    ["thresholds that fall", { thresholds: { mfa: 3, block: 2 } }, "thresholds must rise: mfa ≤ phishing_resistant ≤ block"],
    ["a flag that is not one", { notify_new_device: "yes" }, "notify_new_device must be true or false"],
  ] as const)("refuses %s", (_name, json, violation) => {
    let caught: unknown;
    try {
      riskPolicyFromJson(json);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatehouseError);
    const error = caught as GatehouseError;
    expect(error.kind).toBe("invalid_argument");
    expect([error.message, ...(error.details.violations ?? [])].join(" | ")).toContain(violation);
  });
});
