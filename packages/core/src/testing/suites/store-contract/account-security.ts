import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import {
  T0,
  MINUTE,
  DAY,
  USER_ID,
  OTHER_USER_ID,
  ORG_ID,
  OTHER_ORG_ID,
  DEVICE_ID,
  OTHER_USER_DEVICE_ID,
  OTHER_ORG_DEVICE_ID,
  aDevice,
  aSession,
  aUser,
  tokenPair,
  times,
  seedGraph,
} from "./fixtures.ts";

/**
 * What eviction and session lifetimes need of the stores (issue 30): disabling users, ending device trust and
 * sessions per user, org and device, finding a device its owner used before, and a session's absolute end.
 */
export function describeAccountSecurityContract(current: () => Stores): void {
  describe("account security", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    describe("users.setDisabled", () => {
      it("disables once (keeping the first time), enables once, and answers false for a missing user", async () => {
        expect(await stores.users.setDisabled(USER_ID, T0)).toBe(true);
        expect(await stores.users.setDisabled(USER_ID, T0 + MINUTE)).toBe(false);
        expect(await stores.users.findById(USER_ID)).toEqual(aUser({ disabledAt: T0 }));
        expect(await stores.users.findByEmail("ada@example.com")).toMatchObject({ disabledAt: T0 });
        expect(await stores.users.findById(OTHER_USER_ID)).toMatchObject({ disabledAt: null });
        expect(await stores.users.setDisabled(USER_ID, null)).toBe(true);
        expect(await stores.users.setDisabled(USER_ID, null)).toBe(false);
        expect(await stores.users.findById(USER_ID)).toEqual(aUser());
        expect(await stores.users.setDisabled("nobody", T0)).toBe(false);
      });

      it("of concurrent disables exactly one reports the change", async () => {
        const changed = await times(8, (i) => stores.users.setDisabled(USER_ID, T0 + i));
        expect(changed.filter(Boolean)).toHaveLength(1);
      });

      it("is what the sign-in facts read", async () => {
        await stores.users.setDisabled(USER_ID, T0);
        expect((await stores.signInFacts.read(USER_ID, ORG_ID, DEVICE_ID))?.user.disabledAt).toBe(T0);
      });
    });

    describe("devices.evictByUser", () => {
      const now = T0 + DAY;
      beforeEach(async () => {
        for (const id of [DEVICE_ID, OTHER_USER_DEVICE_ID, OTHER_ORG_DEVICE_ID]) await stores.devices.markSessionIssued(id, T0, T0 + 30 * DAY);
        // Trusted once, but its trust has run out: nothing to revoke, and still made new.
        await stores.devices.getOrCreate(
          aDevice({ id: "device-expired", fingerprintHash: "fp-old", trusted: true, trustedUntil: T0 + MINUTE, sessionIssuedAt: T0 }),
        );
      });

      it("ends the trust of the user's trusted devices in one org and makes each device there new again, and only there", async () => {
        expect(await stores.devices.evictByUser(USER_ID, now, { orgId: ORG_ID })).toBe(1);
        expect(await stores.devices.findById(DEVICE_ID)).toMatchObject({ trusted: false, trustedUntil: null, trustRevokedAt: now, sessionIssuedAt: null });
        expect(await stores.devices.findById("device-expired")).toMatchObject({ trustRevokedAt: null, sessionIssuedAt: null });
        expect(await stores.devices.findById(OTHER_ORG_DEVICE_ID)).toMatchObject({ trusted: true, trustRevokedAt: null, sessionIssuedAt: T0 });
        expect(await stores.devices.findById(OTHER_USER_DEVICE_ID)).toMatchObject({ trusted: true, trustRevokedAt: null, sessionIssuedAt: T0 });
        expect(await stores.devices.evictByUser(USER_ID, now + 1, { orgId: ORG_ID })).toBe(0);
      });

      it("with no org, in every org of the user", async () => {
        expect(await stores.devices.evictByUser(USER_ID, now)).toBe(2);
        expect(await stores.devices.findById(DEVICE_ID)).toMatchObject({ trusted: false, trustRevokedAt: now, sessionIssuedAt: null });
        expect(await stores.devices.findById(OTHER_ORG_DEVICE_ID)).toMatchObject({ trusted: false, trustRevokedAt: now, sessionIssuedAt: null });
        expect(await stores.devices.findById("device-expired")).toMatchObject({ trustRevokedAt: null, sessionIssuedAt: null });
        expect(await stores.devices.findById(OTHER_USER_DEVICE_ID)).toMatchObject({ trusted: true, sessionIssuedAt: T0 });
        expect(await stores.devices.evictByUser(USER_ID, now)).toBe(0);
      });

      it("leaves the kept device trusted and known, in every org or in its own", async () => {
        expect(await stores.devices.evictByUser(USER_ID, now, { keepDeviceId: DEVICE_ID })).toBe(1);
        expect(await stores.devices.findById(DEVICE_ID)).toMatchObject({
          trusted: true,
          trustedUntil: T0 + 30 * DAY,
          trustRevokedAt: null,
          sessionIssuedAt: T0,
        });
        expect(await stores.devices.findById(OTHER_ORG_DEVICE_ID)).toMatchObject({ trusted: false, trustRevokedAt: now, sessionIssuedAt: null });
        expect(await stores.devices.findById("device-expired")).toMatchObject({ sessionIssuedAt: null });
        await stores.devices.markSessionIssued(OTHER_ORG_DEVICE_ID, now, now + DAY);
        expect(await stores.devices.evictByUser(USER_ID, now, { orgId: ORG_ID, keepDeviceId: DEVICE_ID })).toBe(0);
        expect(await stores.devices.findById(DEVICE_ID)).toMatchObject({ trusted: true, sessionIssuedAt: T0 });
        expect(await stores.devices.findById(OTHER_ORG_DEVICE_ID)).toMatchObject({ trusted: true, sessionIssuedAt: now });
      });

      it("of concurrent evictions, each device's lost trust is counted once", async () => {
        const counts = await times(10, () => stores.devices.evictByUser(USER_ID, now));
        expect(counts.reduce((sum, count) => sum + count, 0)).toBe(2);
        expect(await stores.devices.findById(OTHER_ORG_DEVICE_ID)).toMatchObject({ trusted: false, sessionIssuedAt: null });
      });

      it("finds nothing to do for a user without devices", async () => {
        expect(await stores.devices.evictByUser("nobody", now)).toBe(0);
        expect(await stores.devices.findById(DEVICE_ID)).toMatchObject({ trusted: true, sessionIssuedAt: T0 });
      });
    });

    describe("devices.findWithSession", () => {
      it("finds the user's device with this fingerprint only once a session was issued for it, in any org", async () => {
        expect(await stores.devices.findWithSession(USER_ID, "fp-laptop")).toBeNull();
        await stores.devices.markSessionIssued(OTHER_ORG_DEVICE_ID, T0 + MINUTE);
        expect(await stores.devices.findWithSession(USER_ID, "fp-laptop")).toEqual(
          aDevice({ id: OTHER_ORG_DEVICE_ID, orgId: OTHER_ORG_ID, sessionIssuedAt: T0 + MINUTE }),
        );
        expect(await stores.devices.findWithSession(USER_ID, "fp-phone")).toBeNull();
        expect(await stores.devices.findWithSession(OTHER_USER_ID, "fp-laptop")).toBeNull();
        expect(await stores.devices.findWithSession("", "fp-laptop")).toBeNull();
      });
    });

    describe("sessions", () => {
      const now = T0 + MINUTE;
      const session = (id: string, tag: string, overrides = {}) => aSession({ id, ...tokenPair(tag), ...overrides });

      it("revokeByUser with no org ends the user's active sessions in every org", async () => {
        await stores.sessions.create(session("s-1", "1"));
        await stores.sessions.create(session("s-2", "2", { orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
        await stores.sessions.create(session("s-3", "3", { userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
        expect(await stores.sessions.revokeByUser(USER_ID, now)).toBe(2);
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-3", now)).not.toBeNull();
        expect(await stores.sessions.revokeByUser(USER_ID, now)).toBe(0);
      });

      it("revokeByUser leaves the kept session active, in every org or in its own", async () => {
        await stores.sessions.create(session("s-1", "1"));
        await stores.sessions.create(session("s-2", "2"));
        await stores.sessions.create(session("s-3", "3", { orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
        await stores.sessions.create(session("s-4", "4", { userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
        expect(await stores.sessions.revokeByUser(USER_ID, now, { orgId: ORG_ID, keepSessionId: "s-2" })).toBe(1);
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-3", now)).not.toBeNull();
        expect(await stores.sessions.revokeByUser(USER_ID, now, { keepSessionId: "s-2" })).toBe(1);
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now)).not.toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-3", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-4", now)).not.toBeNull();
        expect(await stores.sessions.revokeByUser(USER_ID, now, { keepSessionId: "s-2" })).toBe(0);
        expect(await stores.sessions.revokeByUser(USER_ID, now)).toBe(1);
      });

      it("of concurrent revokeByUser calls, each session is counted once", async () => {
        await stores.sessions.create(session("s-1", "1"));
        await stores.sessions.create(session("s-2", "2", { orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
        const counts = await times(10, () => stores.sessions.revokeByUser(USER_ID, now));
        expect(counts.reduce((sum, count) => sum + count, 0)).toBe(2);
      });

      it("revokeByDevice ends the device's active sessions only", async () => {
        await stores.sessions.create(session("s-1", "1"));
        await stores.sessions.create(session("s-2", "2"));
        await stores.sessions.create(session("s-3", "3", { orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
        expect(await stores.sessions.revokeByDevice(DEVICE_ID, now)).toBe(2);
        expect((await stores.sessions.rotate("refresh-1", tokenPair("4", now), now)).kind).toBe("invalid");
        expect(await stores.sessions.findActiveByAccessTokenHash("access-3", now)).not.toBeNull();
        expect(await stores.sessions.revokeByDevice(DEVICE_ID, now)).toBe(0);
        expect(await stores.sessions.revokeByDevice("no-device", now)).toBe(0);
      });

      it("round-trips the absolute end, and rotation caps both expiries at it without moving it", async () => {
        const end = T0 + 10 * DAY;
        await stores.sessions.create(aSession({ expiresAt: end }));
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toEqual(aSession({ expiresAt: end }));
        const at = end - MINUTE;
        const rotation = await stores.sessions.rotate("refresh-1", tokenPair("2", at), at);
        expect(rotation).toEqual({
          kind: "rotated",
          session: aSession({ ...tokenPair("2", at), accessExpiresAt: end, refreshExpiresAt: end, expiresAt: end }),
        });
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", end - 1)).not.toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", end)).toBeNull();
        expect((await stores.sessions.rotate("refresh-2", tokenPair("3", end), end)).kind).toBe("invalid");
      });

      it("a rotation well before the end keeps the new expiries as they are", async () => {
        await stores.sessions.create(aSession({ expiresAt: T0 + 30 * DAY }));
        const next = { ...tokenPair("2", now), refreshExpiresAt: now + 7 * DAY };
        expect(await stores.sessions.rotate("refresh-1", next, now)).toEqual({ kind: "rotated", session: aSession({ ...next, expiresAt: T0 + 30 * DAY }) });
      });

      it("a session past its absolute end cannot be refreshed, even with a refresh token that outlived it (a session older than the end's backfill)", async () => {
        await stores.sessions.create(aSession({ expiresAt: now, refreshExpiresAt: T0 + 7 * DAY }));
        expect((await stores.sessions.rotate("refresh-1", tokenPair("2", now), now)).kind).toBe("invalid");
      });

      it("a session not rotated before its refresh expiry (the idle lifetime) cannot be refreshed", async () => {
        await stores.sessions.create(aSession({ refreshExpiresAt: T0 + 7 * DAY }));
        expect((await stores.sessions.rotate("refresh-1", tokenPair("2", T0 + 7 * DAY), T0 + 7 * DAY)).kind).toBe("invalid");
      });

      it("reuse of a token rotated away near the end is still detected until the capped expiry", async () => {
        const end = T0 + 2 * DAY;
        await stores.sessions.create(aSession({ expiresAt: end }));
        await stores.sessions.rotate("refresh-1", tokenPair("2", now), now);
        expect((await stores.sessions.rotate("refresh-1", tokenPair("3", now), end - 1)).kind).toBe("reused");
      });
    });
  });
}
