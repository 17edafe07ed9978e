import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import {
  T0,
  USER_ID,
  ORG_ID,
  DEVICE_ID,
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
      expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.challenge).toEqual(aChallenge({ attempts: 1 }));
      expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.challenge.attempts).toBe(2);
      expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.challenge.attempts).toBe(3);
      expect(await stores.challenges.claimAttempt("challenge-1", 3, T0)).toBeNull();
      expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(3);
      expect(await stores.challenges.claimAttempt("no-challenge", 3, T0)).toBeNull();
    });

    it("answers a claim with the sign-in facts of the challenge's user, org and device, as SignInFactsStore.read gives them after the claim", async () => {
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "member" });
      await stores.users.setVerifiedPhone(USER_ID, "+15550100");
      await stores.settings.putOrg(ORG_ID, {
        requireMfaNewDevice: true,
        requireMfaUntrustedDevice: false,
        trustDeviceAfterMfa: true,
        trustTtlDays: 7,
        smsAllowedCountries: [],
      });
      await stores.challenges.create(aChallenge());
      const claim = await stores.challenges.claimAttempt("challenge-1", 3, T0);
      expect(claim?.facts).toEqual(await stores.signInFacts.read(USER_ID, ORG_ID, DEVICE_ID));
      expect(claim?.facts).toMatchObject({
        user: { id: USER_ID, phone: "+15550100" },
        membership: { role: "member" },
        device: { id: DEVICE_ID },
        settings: { org: { trustTtlDays: 7 } },
      });

      await stores.challenges.create(aChallenge({ id: "challenge-2", userId: OTHER_USER_ID }));
      const outsider = await stores.challenges.claimAttempt("challenge-2", 3, T0);
      expect(outsider?.challenge.userId).toBe(OTHER_USER_ID);
      // The device is another user's, and this user is no member of the org.
      expect(outsider?.facts).toMatchObject({ user: { id: OTHER_USER_ID }, membership: null, device: null });
    });

    it("never claims an attempt on an expired challenge and leaves it unchanged", async () => {
      await stores.challenges.create(aChallenge({ attempts: 2 }));
      const expiry = aChallenge().expiresAt;
      for (let i = 0; i < 6; i++) expect(await stores.challenges.claimAttempt("challenge-1", 5, expiry + i)).toBeNull();
      expect(await stores.challenges.findById("challenge-1")).toEqual(aChallenge({ attempts: 2 }));
      expect((await stores.challenges.claimAttempt("challenge-1", 5, expiry - 1))?.challenge.attempts).toBe(3);
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
      const claimed = results.flatMap((result) => (result === null ? [] : [result.challenge.attempts]));
      expect(claimed.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
      expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(5);
    });
  });
}
