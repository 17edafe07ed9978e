import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import {
  T0,
  USER_ID,
  OTHER_USER_ID,
  OTHER_ORG_ID,
  OTHER_USER_DEVICE_ID,
  OTHER_ORG_DEVICE_ID,
  aChallenge,
  expectRejectionKind,
  times,
  seedGraph,
} from "./fixtures.ts";

/** The `ChallengeStore` contract; `current` returns the fresh stores of the running test. */
export function describeChallengesContract(current: () => Stores): void {
  describe("challenges", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    beforeEach(async () => {
      await seedGraph(stores);
    });

    it("round-trips every field and returns null for an unknown id", async () => {
      const challenge = aChallenge({ attempts: 2 });
      await stores.challenges.create(challenge);
      expect(await stores.challenges.findById(challenge.id)).toEqual(challenge);
      expect(await stores.challenges.findById("no-challenge")).toBeNull();
    });

    it("refuses a duplicate id with already_exists", async () => {
      await stores.challenges.create(aChallenge());
      await expectRejectionKind(stores.challenges.create(aChallenge({ phone: "+15550199" })), "already_exists");
    });

    it("claims attempts up to the maximum and returns the incremented record", async () => {
      await stores.challenges.create(aChallenge());
      expect(await stores.challenges.claimAttempt("challenge-1", 3, T0)).toEqual(aChallenge({ attempts: 1 }));
      expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.attempts).toBe(2);
      expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.attempts).toBe(3);
      expect(await stores.challenges.claimAttempt("challenge-1", 3, T0)).toBeNull();
      expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(3);
      expect(await stores.challenges.claimAttempt("no-challenge", 3, T0)).toBeNull();
    });

    it("gives back a claimed attempt, never below zero, and leaves a missing challenge missing", async () => {
      await stores.challenges.create(aChallenge());
      await stores.challenges.claimAttempt("challenge-1", 3, T0);
      await stores.challenges.claimAttempt("challenge-1", 3, T0);
      await stores.challenges.releaseAttempt("challenge-1");
      expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(1);
      await stores.challenges.releaseAttempt("challenge-1");
      await stores.challenges.releaseAttempt("challenge-1");
      expect(await stores.challenges.findById("challenge-1")).toEqual(aChallenge({ attempts: 0 }));
      await stores.challenges.releaseAttempt("no-challenge");
      expect(await stores.challenges.findById("no-challenge")).toBeNull();
    });

    it("never claims an attempt on an expired challenge and leaves it unchanged", async () => {
      await stores.challenges.create(aChallenge({ attempts: 2 }));
      const expiry = aChallenge().expiresAt;
      for (let i = 0; i < 6; i++) expect(await stores.challenges.claimAttempt("challenge-1", 5, expiry + i)).toBeNull();
      expect(await stores.challenges.findById("challenge-1")).toEqual(aChallenge({ attempts: 2 }));
      expect((await stores.challenges.claimAttempt("challenge-1", 5, expiry - 1))?.attempts).toBe(3);
    });

    it("consumes a challenge exactly once", async () => {
      await stores.challenges.create(aChallenge());
      expect(await stores.challenges.consume("challenge-1")).toEqual(aChallenge());
      expect(await stores.challenges.consume("challenge-1")).toBeNull();
      expect(await stores.challenges.findById("challenge-1")).toBeNull();
    });

    it("deletes one challenge, reporting whether it existed", async () => {
      await stores.challenges.create(aChallenge());
      expect(await stores.challenges.delete("challenge-1")).toBe(true);
      expect(await stores.challenges.delete("challenge-1")).toBe(false);
      expect(await stores.challenges.findById("challenge-1")).toBeNull();
    });

    it("deletes every challenge of one user and counts them", async () => {
      await stores.challenges.create(aChallenge());
      await stores.challenges.create(aChallenge({ id: "challenge-2", orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
      await stores.challenges.create(aChallenge({ id: "challenge-3", userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
      expect(await stores.challenges.deleteByUser(USER_ID)).toBe(2);
      expect(await stores.challenges.deleteByUser(USER_ID)).toBe(0);
      expect(await stores.challenges.findById("challenge-3")).not.toBeNull();
    });

    it("lets exactly one of 50 concurrent consumes have the challenge", async () => {
      await stores.challenges.create(aChallenge());
      const results = await times(50, () => stores.challenges.consume("challenge-1"));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it("grants exactly maxAttempts of 50 concurrent claims", async () => {
      await stores.challenges.create(aChallenge());
      const results = await times(50, () => stores.challenges.claimAttempt("challenge-1", 5, T0));
      const claimed = results.flatMap((result) => (result === null ? [] : [result.attempts]));
      expect(claimed.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
      expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(5);
    });

    it("round-trips the session a step-up challenge renews", async () => {
      await stores.challenges.create(aChallenge({ id: "step-up", stepUpSessionId: "session-1" }));
      expect(await stores.challenges.findById("step-up")).toEqual(aChallenge({ id: "step-up", stepUpSessionId: "session-1" }));
      await stores.challenges.create(aChallenge({ id: "sign-in" }));
      expect((await stores.challenges.findById("sign-in"))?.stepUpSessionId).toBeUndefined();
    });

    it("round-trips a challenge the risk engine asked a phishing-resistant factor of, through claim and consume", async () => {
      await stores.challenges.create(aChallenge({ id: "risky", phishingResistant: true }));
      expect(await stores.challenges.findById("risky")).toEqual(aChallenge({ id: "risky", phishingResistant: true }));
      expect((await stores.challenges.claimAttempt("risky", 5, T0))?.phishingResistant).toBe(true);
      expect((await stores.challenges.consume("risky"))?.phishingResistant).toBe(true);
      await stores.challenges.create(aChallenge({ id: "plain" }));
      expect((await stores.challenges.findById("plain"))?.phishingResistant).toBeUndefined();
    });
  });
}
