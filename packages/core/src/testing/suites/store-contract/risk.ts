import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { featureKey, type RiskObservation } from "../../../records/risk-observation.ts";
import { DEFAULT_RISK_POLICY } from "../../../records/risk-policy.ts";
import type { RiskEvent } from "../../../records/risk-event.ts";
import { DAY, MINUTE, ORG_ID, OTHER_ORG_ID, OTHER_USER_ID, seedGraph, T0, times, USER_ID } from "./fixtures.ts";

function anObservation(at: number, overrides: Partial<RiskObservation> = {}): RiskObservation {
  return {
    at,
    ip: "8.8.8.8",
    country: "US",
    asn: 15169,
    location: { latitude: 37.4, longitude: -122.1 },
    userAgent: "Mozilla/5.0",
    browser: "Chrome 131",
    os: "Windows 10",
    deviceType: "desktop",
    rttMs: null,
    ...overrides,
  };
}

function anEvent(id: string, at: number, overrides: Partial<RiskEvent> = {}): RiskEvent {
  return {
    id,
    orgId: ORG_ID,
    userId: USER_ID,
    at,
    mode: "enforce",
    decision: "mfa",
    applied: "mfa",
    score: 2.5,
    signals: [{ signal: "country", value: "US", userSeen: 0, userTotal: 3, platformSeen: 9, contribution: 2.5, code: "new_country" }],
    rules: [{ code: "impossible_travel", decision: "mfa", detail: "9000 km in 1.0 h since the previous sign-in" }],
    observation: anObservation(at),
    previous: null,
    ...overrides,
  };
}

/** The risk engine's store: each user's bounded history, the platform's counts, the judged sign-ins, each org's policy. */
export function describeRiskContract(current: () => Stores): void {
  describe("risk", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    it("history: a user's sign-ins since a time, oldest first, the newest `limit`, nobody else's", async () => {
      for (let i = 0; i < 5; i++) await stores.risk.recordSignIn(USER_ID, anObservation(T0 + i * MINUTE, { ip: `10.0.0.${i}` }), 0, 100);
      await stores.risk.recordSignIn(OTHER_USER_ID, anObservation(T0), 0, 100);
      expect((await stores.risk.history(USER_ID, 0, 100)).map((row) => row.ip)).toEqual(["10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]);
      expect((await stores.risk.history(USER_ID, 0, 2)).map((row) => row.ip)).toEqual(["10.0.0.3", "10.0.0.4"]);
      expect((await stores.risk.history(USER_ID, T0 + 3 * MINUTE, 100)).map((row) => row.ip)).toEqual(["10.0.0.3", "10.0.0.4"]);
      expect(await stores.risk.history(USER_ID, 0, 100).then((rows) => rows[0])).toEqual(anObservation(T0, { ip: "10.0.0.0" }));
    });

    it("signInFeatures: a user's sign-ins since a time grouped by their feature values, how many each, nobody else's", async () => {
      const home = { ip: "10.0.0.1", rttMs: 30 };
      for (let i = 0; i < 3; i++) await stores.risk.recordSignIn(USER_ID, anObservation(T0 + i * MINUTE, home), 0, 100);
      // Another round-trip time in the same 25 ms bucket is the same features; an address is not.
      await stores.risk.recordSignIn(USER_ID, anObservation(T0 + 3 * MINUTE, { ...home, rttMs: 40 }), 0, 100);
      await stores.risk.recordSignIn(USER_ID, anObservation(T0 + 4 * MINUTE, { ip: "10.0.0.2" }), 0, 100);
      await stores.risk.recordSignIn(OTHER_USER_ID, anObservation(T0, home), 0, 100);
      const byKey = (groups: readonly { features: string; times: number }[]) => Object.fromEntries(groups.map((group) => [group.features, group.times]));
      expect(byKey(await stores.risk.signInFeatures(USER_ID, 0))).toEqual({
        [featureKey(anObservation(T0, home))]: 4,
        [featureKey(anObservation(T0, { ip: "10.0.0.2" }))]: 1,
      });
      expect(byKey(await stores.risk.signInFeatures(USER_ID, T0 + 3 * MINUTE))).toEqual({
        [featureKey(anObservation(T0, home))]: 1,
        [featureKey(anObservation(T0, { ip: "10.0.0.2" }))]: 1,
      });
      expect(await stores.risk.signInFeatures("nobody", 0)).toEqual([]);
    });

    it("recordSignIn: forgets the user's sign-ins before `forgetBefore` and beyond the newest `keep`, nobody else's", async () => {
      await stores.risk.recordSignIn(OTHER_USER_ID, anObservation(T0), 0, 100);
      await stores.risk.recordSignIn(USER_ID, anObservation(T0), 0, 100);
      await stores.risk.recordSignIn(USER_ID, anObservation(T0 + 200 * DAY, { ip: "a" }), T0 + 17 * DAY, 100);
      expect((await stores.risk.history(USER_ID, 0, 100)).map((row) => row.ip)).toEqual(["a"]);
      for (let i = 0; i < 4; i++) await stores.risk.recordSignIn(USER_ID, anObservation(T0 + 201 * DAY + i, { ip: `b${i}` }), 0, 3);
      expect(await stores.risk.history(USER_ID, 0, 100)).toHaveLength(3);
      await stores.risk.recordSignIn(USER_ID, anObservation(T0 + 202 * DAY, { ip: "c" }), 0, 3);
      expect((await stores.risk.history(USER_ID, 0, 100)).map((row) => row.ip).slice(-1)).toEqual(["c"]);
      expect(await stores.risk.history(USER_ID, 0, 100)).toHaveLength(3);
      expect(await stores.risk.history(OTHER_USER_ID, 0, 100)).toHaveLength(1);
    });

    it("countPlatform: counts each level, and a parent's distinct children once per new child, concurrently too", async () => {
      const levels = (child: string) => [
        { key: "root", parent: null },
        { key: child, parent: "root" },
      ];
      await times(10, () => stores.risk.countPlatform(levels("a")));
      await times(3, () => stores.risk.countPlatform(levels("b")));
      const counts = await stores.risk.platformCounts(["root", "a", "b", "never"]);
      expect(counts.get("root")).toEqual({ count: 13, distinct: 2 });
      expect(counts.get("a")).toEqual({ count: 10, distinct: 0 });
      expect(counts.get("b")).toEqual({ count: 3, distinct: 0 });
      expect(counts.has("never")).toBe(false);
      expect((await stores.risk.platformCounts([])).size).toBe(0);
    });

    it("events: appended whole, listed newest first per org and user, at most `limit`", async () => {
      await stores.risk.appendEvent(anEvent("e1", T0));
      await stores.risk.appendEvent(anEvent("e2", T0 + MINUTE, { previous: anObservation(T0) }));
      await stores.risk.appendEvent(anEvent("e3", T0 + 2 * MINUTE, { userId: OTHER_USER_ID }));
      await stores.risk.appendEvent(anEvent("e4", T0 + 3 * MINUTE, { orgId: OTHER_ORG_ID }));
      expect((await stores.risk.listEvents({ orgId: ORG_ID, limit: 10 })).map((event) => event.id)).toEqual(["e3", "e2", "e1"]);
      expect((await stores.risk.listEvents({ orgId: ORG_ID, userId: USER_ID, limit: 10 })).map((event) => event.id)).toEqual(["e2", "e1"]);
      expect((await stores.risk.listEvents({ orgId: null, userId: USER_ID, limit: 10 })).map((event) => event.id)).toEqual(["e4", "e2", "e1"]);
      expect((await stores.risk.listEvents({ orgId: null, limit: 1 })).map((event) => event.id)).toEqual(["e4"]);
      expect((await stores.risk.listEvents({ orgId: ORG_ID, since: T0 + MINUTE, limit: 10 })).map((event) => event.id)).toEqual(["e3", "e2"]);
      expect((await stores.risk.listEvents({ orgId: ORG_ID, userId: USER_ID, limit: 1 }))[0]).toEqual(
        anEvent("e2", T0 + MINUTE, { previous: anObservation(T0) }),
      );
    });

    it("answers: recorded on the user's own event only, the last one standing, and listed with the event", async () => {
      await stores.risk.appendEvent(anEvent("e1", T0));
      await stores.risk.appendEvent(anEvent("e2", T0 + MINUTE, { userId: OTHER_USER_ID }));
      expect(await stores.risk.answerEvent("e1", USER_ID, { kind: "false_positive", at: T0 + 1 })).toBe(true);
      expect(await stores.risk.answerEvent("e1", USER_ID, { kind: "true_positive", at: T0 + 2 })).toBe(true);
      expect(await stores.risk.answerEvent("e2", USER_ID, { kind: "true_positive", at: T0 + 3 })).toBe(false);
      expect(await stores.risk.answerEvent("missing", USER_ID, { kind: "true_positive", at: T0 + 3 })).toBe(false);
      const [own] = await stores.risk.listEvents({ orgId: null, userId: USER_ID, limit: 10 });
      expect(own).toEqual({ ...anEvent("e1", T0), answer: { kind: "true_positive", at: T0 + 2 } });
      expect((await stores.risk.listEvents({ orgId: null, userId: OTHER_USER_ID, limit: 10 }))[0]).not.toHaveProperty("answer");
    });

    it("policy: null until put, then the last one put, per org", async () => {
      expect(await stores.risk.policy(ORG_ID)).toBeNull();
      const enforce = { ...DEFAULT_RISK_POLICY, mode: "enforce", allowedCountries: ["US", "FR"], deniedAsns: [64512] } as const;
      await stores.risk.putPolicy(ORG_ID, DEFAULT_RISK_POLICY);
      await stores.risk.putPolicy(ORG_ID, enforce);
      expect(await stores.risk.policy(ORG_ID)).toEqual(enforce);
      expect(await stores.risk.policy(OTHER_ORG_ID)).toBeNull();
    });
  });
}
