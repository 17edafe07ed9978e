import { beforeEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../../records/audit-events.ts";
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
import { RISK_HISTORY } from "../../../risk/history.ts";

/** An audit event for the purge cases: only its id and time matter there. */
function memberRemoved(id: string, at: number): AuditEvent {
  return { id, at, kind: "member.removed", actor: { kind: "system" }, orgId: "o", userId: "u", deviceId: null, clientIp: null, userAgent: null, payload: {} };
}

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

    it("deletes ended rate-limit windows, stale retired tokens, expired intents, long-expired challenges and audit events past their retention, says how many of each, and finds none the second time", async (context) => {
      const purge = handle.purgeExpired;
      // Skipped, with the reason printed, for an adapter without a purge: the memory stores (see `StoreContractHandle.purgeExpired`).
      if (purge === undefined) return context.skip("this adapter has no purge (memory stores live no longer than their process)");
      const t0 = Date.UTC(2026, 0, 1);
      const day = 24 * 60 * 60 * 1000;
      await stores.users.create({
        id: "u",
        email: "u@example.com",
        displayName: "U",
        passwordHash: "h",
        phone: null,
        phoneVerified: false,
        platformAdmin: false,
        emailVerifiedAt: 1,
        createdAt: t0,
      });
      await stores.orgs.create({ id: "o", name: "O", createdAt: t0 });
      const { device } = await stores.devices.getOrCreate({
        id: "d",
        userId: "u",
        orgId: "o",
        fingerprintHash: "f",
        userAgent: null,
        lastAddress: null,
        trusted: false,
        trustedUntil: null,
        trustRevokedAt: null,
        sessionIssuedAt: null,
        createdAt: t0,
        lastSeenAt: t0,
      });
      const owner = { userId: "u", orgId: "o", deviceId: device.id };
      await stores.rateLimiter.consume("old", 5, 60_000, t0);
      await stores.rateLimiter.consume("current", 5, 60_000, t0 + day);
      await stores.intents.create({ id: "i-old", ...owner, expiresAt: t0 + 1, createdAt: t0 });
      await stores.intents.create({ id: "i-live", ...owner, expiresAt: t0 + 2 * day, createdAt: t0 });
      const challenge = { ...owner, phone: "+15550100", codeHash: "x", attempts: 0, createdAt: t0 };
      await stores.challenges.create({ id: "c-old", ...challenge, expiresAt: t0 - 1 });
      await stores.challenges.create({ id: "c-recent", ...challenge, expiresAt: t0 + day - 1 });
      const pair = (tag: string, expiresAt: number) => ({
        accessTokenHash: `a-${tag}`,
        accessExpiresAt: expiresAt,
        refreshTokenHash: `r-${tag}`,
        refreshExpiresAt: expiresAt,
      });
      await stores.sessions.create({
        id: "s",
        ...owner,
        ...pair("1", t0 + day),
        createdAt: t0,
        expiresAt: t0 + 30 * day,
        revokedAt: null,
        amr: ["pwd"],
        aal: 1,
        mfaAt: null,
      });
      await stores.sessions.rotate("r-1", pair("2", t0 + day), t0);
      await stores.sessions.rotate("r-2", pair("3", t0 + 3 * day), t0);

      await stores.audit.append(memberRemoved("e-old", t0));
      await stores.audit.append(memberRemoved("e-kept", t0 + 1));
      const signIn = (at: number) => ({
        at,
        ip: "192.0.2.1",
        country: null,
        asn: null,
        location: null,
        userAgent: "",
        browser: null,
        os: null,
        deviceType: null,
        rttMs: null,
      });
      await stores.risk.recordSignIn("u", signIn(t0 + day - RISK_HISTORY.windowMs - 1), 0, 10);
      await stores.risk.recordSignIn("u", signIn(t0 + day - RISK_HISTORY.windowMs), 0, 10);
      const riskEvent = (id: string, at: number) => ({
        id,
        orgId: "o",
        userId: "u",
        at,
        mode: "audit" as const,
        decision: "allow" as const,
        applied: "allow" as const,
        score: 0,
        signals: [],
        rules: [],
        observation: signIn(at),
        previous: null,
      });
      await stores.risk.appendEvent(riskEvent("r-old", t0));
      await stores.risk.appendEvent(riskEvent("r-kept", t0 + 1));

      const retention = { auditRetentionMs: day };
      expect(await purge(t0 + day, retention)).toEqual({
        rateLimitLogs: 1,
        retiredRefreshTokens: 1,
        intents: 1,
        challenges: 1,
        auditEvents: 1,
        emailTokens: 0,
        invitations: 0,
        smsTraffic: 0,
        sessions: 0,
        devices: 0,
        risk: 2,
        oidcRecords: 0,
      });
      expect(await purge(t0 + day, retention)).toEqual({
        rateLimitLogs: 0,
        retiredRefreshTokens: 0,
        intents: 0,
        challenges: 0,
        auditEvents: 0,
        emailTokens: 0,
        invitations: 0,
        smsTraffic: 0,
        sessions: 0,
        devices: 0,
        risk: 0,
        oidcRecords: 0,
      });
      expect((await stores.risk.history("u", 0, 10)).map((row) => row.at)).toEqual([t0 + day - RISK_HISTORY.windowMs]);
      expect((await stores.risk.listEvents({ orgId: "o", limit: 10 })).map((event) => event.id)).toEqual(["r-kept"]);
      expect((await stores.audit.list({ limit: 10 })).events.map((event) => event.id)).toEqual(["e-kept"]);
      expect((await stores.rateLimiter.consume("current", 5, 60_000, t0 + day)).count).toBe(2);
      expect(await stores.challenges.findById("c-recent")).not.toBeNull();
      expect(await stores.sessions.rotate("r-2", pair("4", t0 + 3 * day), t0 + day)).toEqual({ kind: "reused", sessionId: "s", ...owner });
    });

    it("deletes sessions that ended and devices neither trusted nor seen for 90 days, as the stores' own deletes do", async (context) => {
      const purge = handle.purgeExpired;
      // Skipped, with the reason printed, for an adapter without a purge: the memory stores (see `StoreContractHandle.purgeExpired`).
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
