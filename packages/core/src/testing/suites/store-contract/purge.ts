import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import {
  aChallenge,
  aDevice,
  anIntent,
  DAY,
  DEVICE_ID,
  MINUTE,
  ORG_ID,
  OTHER_ORG_DEVICE_ID,
  OTHER_USER_DEVICE_ID,
  seedGraph,
  T0,
  tokenPair,
  aSession,
  USER_ID,
} from "./fixtures.ts";
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

    it("changes no answer: live limits, intents, challenges, retired refresh tokens, recently expired challenges, the breaker's window and open breakers survive it", async (context) => {
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
      expect(await stores.smsTraffic.report(T0 - 200 * DAY, now)).toEqual([{ key: "prefix:+4479001", sent: 3, verified: 1 }]);
      expect(await stores.sessions.rotate("refresh-1", tokenPair("3", now), now)).toEqual({
        kind: "reused",
        sessionId: "session-1",
        userId: USER_ID,
        orgId: ORG_ID,
        deviceId: DEVICE_ID,
      });
    });

    it("deletes sessions that ended and devices neither trusted nor seen for 90 days, as the stores' own deletes do", async (context) => {
      const purge = handle.purgeExpired;
      if (purge === undefined) return context.skip("this adapter has no purge (memory stores live no longer than their process)");
      const now = T0 + 100 * DAY;
      await stores.sessions.create(aSession({ id: "s-revoked", revokedAt: T0 }));
      await stores.devices.getOrCreate(aDevice({ id: "d-trusted", fingerprintHash: "fp-trusted", trusted: true, trustedUntil: now + DAY }));
      await stores.devices.getOrCreate(aDevice({ id: "d-recent", fingerprintHash: "fp-recent", lastSeenAt: now - DAY }));
      await stores.sessions.create(aSession({ id: "s-live", deviceId: "d-recent", ...tokenPair("live", now - DAY), expiresAt: now + DAY }));

      expect(await purge(now, { auditRetentionMs: 90 * DAY })).toMatchObject({ sessions: 1, devices: 3 });
      expect(await purge(now, { auditRetentionMs: 90 * DAY })).toMatchObject({ sessions: 0, devices: 0 });
      // The seeded devices (seen at T0, in no session once the revoked one went) are gone; the others stay.
      for (const gone of [DEVICE_ID, OTHER_USER_DEVICE_ID, OTHER_ORG_DEVICE_ID]) expect(await stores.devices.findById(gone)).toBeNull();
      expect((await stores.devices.findById("d-trusted"))?.id).toBe("d-trusted");
      expect((await stores.devices.findById("d-recent"))?.id).toBe("d-recent");
      expect((await stores.sessions.listActiveByUser(ORG_ID, USER_ID, now)).map((session) => session.id)).toEqual(["s-live"]);
    });
  });
}
