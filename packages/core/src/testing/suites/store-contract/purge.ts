import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { aChallenge, anIntent, DAY, DEVICE_ID, MINUTE, ORG_ID, seedGraph, T0, tokenPair, aSession, USER_ID } from "./fixtures.ts";
import type { StoreContractHandle } from "./handle.ts";

/**
 * The sweep an adapter offers (`purgeExpired`) may delete only what can no longer change an
 * answer: run between writes and reads, every read answers as it would have without it.
 */
export function describePurgeContract(current: () => StoreContractHandle): void {
  describe("purge", () => {
    let handle: StoreContractHandle;
    let stores: Stores;

    beforeEach(async () => {
      handle = current();
      stores = handle.stores;
      await seedGraph(stores);
    });

    it("changes no answer: live limits, intents, challenges, retired refresh tokens, recently expired challenges, the breaker's window, open breakers, live OpenID records and clients survive it", async (context) => {
      const purge = handle.purgeExpired;
      // Skipped, with the reason printed, for an adapter without a purge: the memory stores, which live no
      // longer than their process and which no purge job runs over (see `StoreContractHandle.purgeExpired`).
      if (purge === undefined) return context.skip("this adapter has no purge (memory stores live no longer than their process)");
      const now = T0 + 30_000;
      expect((await stores.rateLimiter.consume("live", 1, MINUTE, T0)).allowed).toBe(true);
      expect((await stores.rateLimiter.consume("ended", 1, MINUTE, T0 - 2 * MINUTE)).allowed).toBe(true);
      await stores.intents.create(anIntent({ id: "intent-live", expiresAt: now + MINUTE }));
      await stores.intents.create(anIntent({ id: "intent-expired", expiresAt: now - 1 }));
      await stores.challenges.create(aChallenge({ id: "challenge-live", expiresAt: now + MINUTE }));
      await stores.challenges.create(aChallenge({ id: "challenge-expired-recently", expiresAt: now - MINUTE }));
      await stores.challenges.create(aChallenge({ id: "challenge-expired-long-ago", createdAt: now - 3 * DAY, expiresAt: now - 2 * DAY }));
      await stores.sessions.create(aSession());
      expect((await stores.sessions.rotate("refresh-1", tokenPair("2", T0), T0)).kind).toBe("rotated");
      await stores.smsTraffic.add(["prefix:+4479001"], T0 - 60 * MINUTE, 3, 1);
      await stores.smsTraffic.add(["prefix:+4479001"], T0 - 100 * DAY, 50, 0);
      expect(await stores.smsTraffic.trip("prefix:+882123", now + MINUTE, T0)).toBe(true);
      expect(await stores.smsTraffic.trip("prefix:+882999", now - 1, T0 - DAY)).toBe(true);
      const oidcRecord = { model: "RefreshToken", payload: "{}", grantId: "grant-1", uid: null, userCode: null };
      await stores.oidc.upsert({ ...oidcRecord, id: "refresh-live", expiresAt: now + 1 });
      await stores.oidc.upsert({ ...oidcRecord, model: "Client", id: "client", grantId: null, expiresAt: null });

      await purge(now, { auditRetentionMs: 90 * DAY });
      await purge(now, { auditRetentionMs: 90 * DAY });

      expect(await stores.rateLimiter.consume("live", 1, MINUTE, now)).toEqual({ allowed: false, count: 1, retryAt: T0 + MINUTE });
      expect((await stores.rateLimiter.consume("ended", 1, MINUTE, now)).allowed).toBe(true);
      expect((await stores.intents.consume("intent-live", now))?.id).toBe("intent-live");
      expect(await stores.intents.consume("intent-expired", now)).toBeNull();
      expect((await stores.challenges.claimAttempt("challenge-live", 5, now))?.attempts).toBe(1);
      expect((await stores.challenges.findById("challenge-expired-recently"))?.id).toBe("challenge-expired-recently");
      expect(await stores.smsTraffic.read(["prefix:+4479001", "prefix:+882123"], T0 - 2 * 60 * MINUTE, now)).toEqual([
        { key: "prefix:+4479001", sent: 3, verified: 1, openUntil: null },
        { key: "prefix:+882123", sent: 0, verified: 0, openUntil: now + MINUTE },
      ]);
      expect(await stores.oidc.find("RefreshToken", "refresh-live", now)).not.toBeNull();
      expect(await stores.oidc.find("Client", "client", now)).not.toBeNull();
      expect(await stores.smsTraffic.report(T0 - 200 * DAY, now)).toEqual([{ key: "prefix:+4479001", sent: 3, verified: 1 }]);
      expect(await stores.sessions.rotate("refresh-1", tokenPair("3", now), now)).toEqual({
        kind: "reused",
        sessionId: "session-1",
        userId: USER_ID,
        orgId: ORG_ID,
        deviceId: DEVICE_ID,
      });
    });
  });
}
