import { describe, expect, it } from "vitest";
import { FeatureCounts } from "../../src/risk/feature-counts.ts";
import { UserRiskHistory, RISK_HISTORY } from "../../src/risk/history.ts";
import type { RiskObservation } from "../../src/records/risk-observation.ts";
import { scoreObservation } from "../../src/risk/score.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

const observation = (overrides: Partial<RiskObservation> = {}): RiskObservation => ({
  at: T0,
  ip: "81.2.69.10",
  country: "GB",
  asn: 5089,
  location: null,
  userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0.0.0 Safari/537.36",
  browser: "Chrome 131",
  os: "Windows 10",
  deviceType: "desktop",
  rttMs: 30,
  ...overrides,
});

/** A user who signed in `times` times as `base`, on a platform where others sign in from elsewhere. */
function world(times: number, base: Partial<RiskObservation> = {}, vary: (index: number) => Partial<RiskObservation> = () => ({})) {
  const user = new FeatureCounts();
  const platform = new FeatureCounts();
  for (let index = 0; index < times; index++) {
    const seen = observation({ ...base, ...vary(index) });
    user.add(seen);
    platform.add(seen);
  }
  const others: Partial<RiskObservation>[] = [
    { country: "DE", asn: 3320, ip: "84.1.1.1", rttMs: 40 },
    { country: "US", asn: 7922, ip: "73.1.1.1", browser: "Firefox 133", rttMs: 110 },
    { country: "FR", asn: 3215, ip: "90.1.1.1", os: "Mac OS 14", rttMs: 35 },
  ];
  for (let index = 0; index < 300; index++) platform.add(observation({ ...others[index % 3], ip: `10.${index % 3}.0.${index % 250}` }));
  return { user, platform };
}

const scoreOf = (counts: ReturnType<typeof world>, seen: Partial<RiskObservation>) => scoreObservation(observation(seen), counts.user, counts.platform);
const signal = (score: ReturnType<typeof scoreObservation>, name: string) => score.signals.find((each) => each.signal === name)!;

describe("scoreObservation", () => {
  const owner = world(40);
  it.each([
    ["the owner's usual sign-in", {}, 0, 0.01],
    ["a new address in the usual network", { ip: "81.2.69.99" }, 1, 2],
    ["a new network in the usual country", { asn: 2856, ip: "86.1.1.1" }, 1, 2],
    ["a new country", { country: "RU", asn: 12389, ip: "95.1.1.1" }, 1, 2],
    ["a new browser on the usual OS", { browser: "Firefox 133", userAgent: "Firefox/133.0" }, 1, 2],
    ["a new round-trip time", { rttMs: 250 }, 1, 2],
    ["a targeted attacker: the country and browser known, network and path not", { asn: 2856, ip: "86.1.1.1", rttMs: 180 }, 2, 4],
  ] as const)("%s", (_name, seen, min, max) => {
    const { score } = scoreOf(owner, seen);
    expect(score).toBeGreaterThanOrEqual(min);
    expect(score).toBeLessThanOrEqual(max);
  });

  it("counts a novelty once, at the level where it appears", () => {
    const score = scoreOf(owner, { country: "RU", asn: 12389, ip: "95.1.1.1" });
    expect(signal(score, "country").code).toBe("new_country");
    expect(signal(score, "asn").contribution).toBe(0);
    expect(signal(score, "ip").contribution).toBe(0);
  });

  it("never lets a familiar value vouch for an unusual one: no contribution is negative", () => {
    const score = scoreOf(owner, { asn: 2856, ip: "86.1.1.1" });
    expect(score.signals.every((each) => each.contribution >= 0)).toBe(true);
    expect(signal(score, "country")).toMatchObject({ code: "known_country", contribution: 0, userSeen: 40, userTotal: 40 });
  });

  it("judges a new address less for a user whose addresses always change (a mobile carrier's)", () => {
    const mobile = world(40, {}, (index) => ({ ip: `81.2.${index}.1` }));
    const fixed = world(40);
    expect(signal(scoreOf(mobile, { ip: "81.2.200.1" }), "ip").contribution).toBeLessThan(signal(scoreOf(fixed, { ip: "81.2.200.1" }), "ip").contribution);
  });

  it("grows with the history a novelty breaks", () => {
    expect(scoreOf(world(100), { country: "RU" }).score).toBeGreaterThan(scoreOf(world(5), { country: "RU" }).score);
  });

  it("has nothing to say without history", () => {
    const score = scoreOf(world(0), { country: "RU" });
    expect(score.score).toBe(0);
    expect(score.signals.every((each) => each.code === "no_history")).toBe(true);
  });
});

describe("FeatureCounts", () => {
  it("takes back exactly what it added", () => {
    const counts = new FeatureCounts();
    const a = observation();
    const b = observation({ ip: "81.2.69.11", rttMs: 300 });
    counts.add(a);
    counts.add(b);
    counts.remove(a);
    const only = new FeatureCounts();
    only.add(b);
    for (const key of ["ip", "ip\u0000GB", "ip\u0000GB\u00005089", "rtt"]) {
      expect([counts.count(key), counts.distinct(key)]).toEqual([only.count(key), only.distinct(key)]);
    }
  });
});

describe("UserRiskHistory", () => {
  it("keeps six months and forgets what falls out", () => {
    const history = new UserRiskHistory();
    history.add(observation({ at: T0 }));
    history.add(observation({ at: T0 + DAY, country: "DE" }));
    history.prune(T0 + RISK_HISTORY.windowMs + DAY / 2);
    expect(history.size).toBe(1);
    expect(history.counts.count("ip\u0000GB")).toBe(0);
    expect(history.previous()).toMatchObject({ country: "DE" });
  });

  it("holds at most its bound per user", () => {
    const history = new UserRiskHistory();
    for (let index = 0; index <= RISK_HISTORY.maxPerUser; index++) history.add(observation({ at: T0 + index }));
    expect(history.size).toBe(RISK_HISTORY.maxPerUser);
    expect(history.counts.count("ip")).toBe(RISK_HISTORY.maxPerUser);
  });
});
