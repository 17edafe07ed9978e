import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import {
  T0,
  MINUTE,
  USER_ID,
  ORG_ID,
  aChallenge,
  aSession,
  aTotpFactor,
  anIntent,
  anOrg,
  expectRejectionKind,
  recoveryCodes,
  times,
  seedGraph,
} from "./fixtures.ts";

/** The unit of work (`Stores.transaction`): commit, rollback across ports, joining, and the atomic methods inside it. */
export function describeTransactionsContract(current: () => Stores): void {
  describe("transactions", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    const boom = new Error("the work failed");

    it("commits every write of a work that resolves, and returns its value", async () => {
      const value = await stores.transaction(async (tx) => {
        await tx.intents.create(anIntent());
        await tx.challenges.create(aChallenge());
        await tx.sessions.create(aSession());
        return "done";
      });
      expect(value).toBe("done");
      expect(await stores.challenges.findById("challenge-1")).toEqual(aChallenge());
      expect(await stores.sessions.findActiveByAccessTokenHash(aSession().accessTokenHash, T0)).toEqual(aSession());
      expect(await stores.intents.consume("intent-1", T0)).toEqual(anIntent());
    });

    it("rolls back every write of a work that rejects, across ports, and passes the rejection on", async () => {
      await stores.challenges.create(aChallenge());
      await stores.intents.create(anIntent());
      const before = await stores.rateLimiter.consume("otp-send:user:user-1", 5, 15 * MINUTE, T0);
      const outcome = stores.transaction(async (tx) => {
        expect(await tx.challenges.claimAttempt("challenge-1", 5, T0)).toMatchObject({ attempts: 1 });
        expect(await tx.intents.consume("intent-1", T0)).not.toBeNull();
        expect((await tx.rateLimiter.consume("otp-send:user:user-1", 5, 15 * MINUTE, T0)).allowed).toBe(true);
        await tx.sessions.create(aSession());
        expect(await tx.users.setVerifiedPhone(USER_ID, "+15550100")).toBe(true);
        await tx.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
        await tx.browserPolicies.put(ORG_ID, {
          ...(await tx.browserPolicies.get(ORG_ID))?.policy,
          accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true },
          actionRestrictions: { allowedActions: [], readOnlyMode: false },
        });
        throw boom;
      });
      await expect(outcome).rejects.toBe(boom);
      expect(await stores.challenges.findById("challenge-1")).toEqual(aChallenge());
      expect(await stores.intents.consume("intent-1", T0)).toEqual(anIntent());
      expect(before.allowed && (await stores.rateLimiter.consume("otp-send:user:user-1", 5, 15 * MINUTE, T0)).count).toBe(2);
      expect(await stores.sessions.findActiveByAccessTokenHash(aSession().accessTokenHash, T0)).toBeNull();
      expect(await stores.users.findById(USER_ID)).toMatchObject({ phone: null, phoneVerified: false });
      expect(await stores.orgs.findMembership(ORG_ID, USER_ID)).toBeNull();
      expect(await stores.browserPolicies.get(ORG_ID)).toBeNull();
    });

    it("reports a duplicate key inside a transaction as already_exists and lets the work go on and commit", async () => {
      await stores.transaction(async (tx) => {
        await expectRejectionKind(
          tx.orgs.create(anOrg({ id: "org-3", slug: "acme" })).then(() => tx.orgs.create(anOrg({ id: "org-4", slug: "acme" }))),
          "already_exists",
        );
        await tx.orgs.create(anOrg({ id: "org-4", slug: "acme-2" }));
      });
      expect(await stores.orgs.findBySlug("acme")).toMatchObject({ id: "org-3" });
      expect(await stores.orgs.findBySlug("acme-2")).toMatchObject({ id: "org-4" });
    });

    it("rejects a create whose key is taken at the call, inside a unit of work too: the work may catch it, go on and commit", async () => {
      await stores.challenges.create(aChallenge());
      await stores.sessions.create(aSession());
      const takenKeys = [(tx: Stores) => tx.challenges.create(aChallenge()), (tx: Stores) => tx.sessions.create(aSession({ id: "session-2" }))];
      for (const createTaken of takenKeys) {
        await stores.transaction(async (tx) => {
          await tx.intents.create(anIntent());
          await expectRejectionKind(createTaken(tx), "already_exists");
        });
        expect(await stores.intents.consume("intent-1", T0)).toEqual(anIntent());
      }
    });

    it("keeps none of a work's writes when a taken key's rejection passes on", async () => {
      await stores.challenges.create(aChallenge());
      const outcome = stores.transaction(async (tx) => {
        await tx.intents.create(anIntent());
        await tx.challenges.create(aChallenge());
      });
      await expectRejectionKind(outcome, "already_exists");
      expect(await stores.intents.consume("intent-1", T0)).toBeNull();
    });

    it("joins a nested transaction to the open one: its writes roll back with the outer work", async () => {
      const outcome = stores.transaction(async (tx) => {
        await tx.transaction((inner) => inner.intents.create(anIntent()));
        throw boom;
      });
      await expect(outcome).rejects.toBe(boom);
      expect(await stores.intents.consume("intent-1", T0)).toBeNull();
    });

    it("keeps single use across 20 concurrent transactions: exactly one consumes the intent and commits its own write", async () => {
      await stores.intents.create(anIntent());
      const won = await times(20, (i) =>
        stores.transaction(async (tx) => {
          if ((await tx.intents.consume("intent-1", T0)) === null) return false;
          await tx.challenges.create(aChallenge({ id: `challenge-of-${i}` }));
          return true;
        }),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await stores.challenges.deleteByUser(USER_ID)).toBe(1);
    });

    it("holds a claimed challenge until its transaction ends: of 20 concurrent transactions that claim it and delete it, exactly one claims it", async () => {
      await stores.challenges.create(aChallenge());
      const won = await times(20, (i) =>
        stores.transaction(async (tx) => {
          if ((await tx.challenges.claimAttempt("challenge-1", 5, T0)) === null) return false;
          expect(await tx.challenges.delete("challenge-1")).toBe(true);
          await tx.intents.create(anIntent({ id: `intent-of-${i}` }));
          return true;
        }),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await stores.challenges.findById("challenge-1")).toBeNull();
      expect(await stores.intents.deleteByUser(USER_ID)).toBe(1);
    });

    it("bounds guarded counters across 20 concurrent transactions that each claim an attempt", async () => {
      await stores.challenges.create(aChallenge());
      const claims = await times(20, () => stores.transaction((tx) => tx.challenges.claimAttempt("challenge-1", 5, T0)));
      expect(
        claims
          .filter((claim) => claim !== null)
          .map((claim) => claim?.attempts)
          .sort(),
      ).toEqual([1, 2, 3, 4, 5]);
    });

    it("keeps a rolled-back unit of work's factor writes out", async () => {
      await stores.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "kept"));
      await expect(
        stores.transaction(async (tx) => {
          await tx.totp.create(aTotpFactor());
          await tx.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "lost", 10));
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      expect(await stores.totp.find("totp-1")).toBeNull();
      expect(await stores.recoveryCodes.count(USER_ID)).toBe(3);
    });
  });
}
