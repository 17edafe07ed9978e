import { describe, expect, it } from "vitest";
import type { RiskObservation } from "../../src/records/risk-observation.ts";
import { DEFAULT_RISK_POLICY, type RiskDecision, type RiskPolicy } from "../../src/records/risk-policy.ts";
import { replayRiskEvent, summarizeRiskReplay } from "../../src/risk/replay.ts";
import type { RiskEvent } from "../../src/records/risk-event.ts";
import type { RuleHit } from "../../src/records/risk-event.ts";

const T0 = Date.UTC(2026, 0, 1);
const observation: RiskObservation = {
  at: T0,
  ip: "81.2.69.10",
  country: "NO",
  asn: 2119,
  location: null,
  userAgent: "ua",
  browser: "Chrome 131",
  os: "Windows 10",
  deviceType: "desktop",
  rttMs: null,
};
const event = (score: number, decision: RiskDecision, rules: readonly RuleHit[] = []): RiskEvent => ({
  id: "e",
  orgId: "o",
  userId: "u",
  at: T0,
  mode: "audit",
  decision,
  applied: "allow",
  score,
  signals: [],
  rules,
  observation,
  previous: null,
});
const policy = (overrides: Partial<RiskPolicy> = {}): RiskPolicy => ({ ...DEFAULT_RISK_POLICY, ...overrides });
const VELOCITY: RuleHit = { code: "account_failure_velocity", decision: "mfa", detail: "5 failed sign-ins" };
const DENIED: RuleHit = { code: "country_denied", decision: "block", detail: "country NO is denied" };

describe("replayRiskEvent", () => {
  it.each([
    ["the stored score under the candidate's thresholds: below mfa", policy(), event(1.9, "allow"), "allow", []],
    ["a lower mfa threshold steps it up", policy({ thresholds: { mfa: 1.5, phishingResistant: null, block: null } }), event(1.9, "allow"), "mfa", []],
    ["a block threshold blocks", policy({ thresholds: { mfa: 1, phishingResistant: 2, block: 3 } }), event(3.2, "mfa"), "block", []],
    ["a fact-based rule stays as it fired", policy(), event(0, "mfa", [VELOCITY]), "mfa", ["account_failure_velocity"]],
    ["a geo-fence the candidate adds blocks", policy({ allowedCountries: ["SE"] }), event(0, "allow"), "block", ["country_not_allowed"]],
    ["a denied country the candidate drops no longer blocks", policy(), event(0, "block", [DENIED]), "allow", []],
    [
      "a denied AS number the candidate adds blocks",
      policy({ deniedAsns: [2119] }),
      event(0, "allow", [VELOCITY]),
      "block",
      ["asn_denied", "account_failure_velocity"],
    ],
  ] as const)("%s", (_name, candidate, stored, decision, rules) => {
    const replayed = replayRiskEvent(candidate, stored);
    expect(replayed.decision).toBe(decision);
    expect(replayed.rules.map((hit) => hit.code)).toEqual(rules);
  });
});

describe("summarizeRiskReplay", () => {
  it("counts the candidate's decisions beside the recorded ones, and how many it raised or lowered", () => {
    const candidate = policy({ thresholds: { mfa: 1, phishingResistant: null, block: null } });
    const replayed = [event(0.5, "allow"), event(1.2, "allow"), event(0, "block", [DENIED]), event(2.5, "mfa")].map((each) => replayRiskEvent(candidate, each));
    expect(summarizeRiskReplay(replayed)).toEqual({
      events: 4,
      decisions: { allow: 2, mfa: 2, phishing_resistant: 0, block: 0 },
      recorded: { allow: 2, mfa: 1, phishing_resistant: 0, block: 1 },
      raised: 1,
      lowered: 1,
    });
  });
});
