import { beforeEach, describe, expect, it } from "vitest";
import { MAX_DEVICES_PER_USER } from "../../../model.ts";
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
  aUser,
  anOrg,
  aDevice,
  aSession,
  expectRejectionKind,
  times,
} from "./fixtures.ts";

/** The `DeviceStore` contract; `current` returns the fresh stores of the running test. */
export function describeDevicesContract(current: () => Stores): void {
  describe("devices", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    beforeEach(async () => {
      await stores.users.create(aUser());
      await stores.users.create(aUser({ id: OTHER_USER_ID, email: "grace@example.com" }));
      await stores.orgs.create(anOrg());
      await stores.orgs.create(anOrg({ id: OTHER_ORG_ID }));
    });

    it("creates a device on first sight and round-trips every field", async () => {
      const device = aDevice({
        trusted: true,
        trustedUntil: T0 + 30 * DAY,
        trustRevokedAt: T0 - DAY,
        sessionIssuedAt: T0 - 2 * DAY,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0 «✓»",
        lastAddress: "2001:db8::1",
      });
      expect(await stores.devices.getOrCreate(device)).toEqual({ device, created: true });
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(device);
      expect(await stores.devices.findById("no-device")).toBeNull();
    });

    it("returns the existing device for a known key and updates lastSeenAt, the user agent and the address only", async () => {
      const original = aDevice({ userAgent: "old agent", lastAddress: "192.0.2.1" });
      await stores.devices.getOrCreate(original);
      const sighting = { lastSeenAt: T0 + DAY, userAgent: null, lastAddress: "198.51.100.2" };
      const again = await stores.devices.getOrCreate(aDevice({ id: "device-other-id", createdAt: T0 + DAY, trusted: true, ...sighting }));
      expect(again).toEqual({ device: { ...original, ...sighting }, created: false });
      expect(await stores.devices.findById(DEVICE_ID)).toEqual({ ...original, ...sighting });
      expect(await stores.devices.findById("device-other-id")).toBeNull();
    });

    it("keys devices by user, org and fingerprint hash", async () => {
      await stores.devices.getOrCreate(aDevice());
      const otherFingerprint = await stores.devices.getOrCreate(aDevice({ id: "d-fp", fingerprintHash: "fp-phone" }));
      const otherUser = await stores.devices.getOrCreate(aDevice({ id: "d-user", userId: OTHER_USER_ID }));
      const otherOrg = await stores.devices.getOrCreate(aDevice({ id: "d-org", orgId: OTHER_ORG_ID }));
      expect([otherFingerprint.created, otherUser.created, otherOrg.created]).toEqual([true, true, true]);
    });

    it("refuses a new device whose id is taken with already_exists", async () => {
      await stores.devices.getOrCreate(aDevice());
      await expectRejectionKind(stores.devices.getOrCreate(aDevice({ fingerprintHash: "fp-phone" })), "already_exists");
    });

    it("lists one user's devices in one org, oldest first", async () => {
      const later = aDevice({ id: "d-later", fingerprintHash: "fp-phone", createdAt: T0 + MINUTE, lastSeenAt: T0 + MINUTE });
      await stores.devices.getOrCreate(later);
      await stores.devices.getOrCreate(aDevice());
      await stores.devices.getOrCreate(aDevice({ id: "d-user", userId: OTHER_USER_ID }));
      await stores.devices.getOrCreate(aDevice({ id: "d-org", orgId: OTHER_ORG_ID }));
      expect(await stores.devices.listByUser(ORG_ID, USER_ID)).toEqual([aDevice(), later]);
      expect(await stores.devices.listByUser(OTHER_ORG_ID, OTHER_USER_ID)).toEqual([]);
    });

    it("marks trust, revokes it, and trusts again clearing the revocation", async () => {
      await stores.devices.getOrCreate(aDevice());
      expect(await stores.devices.markTrusted(DEVICE_ID, T0 + 30 * DAY)).toBe(true);
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ trusted: true, trustedUntil: T0 + 30 * DAY }));
      expect(await stores.devices.revokeTrust(DEVICE_ID, T0 + DAY)).toBe(true);
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ trusted: false, trustedUntil: null, trustRevokedAt: T0 + DAY }));
      expect(await stores.devices.markTrusted(DEVICE_ID, T0 + 40 * DAY)).toBe(true);
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ trusted: true, trustedUntil: T0 + 40 * DAY, trustRevokedAt: null }));
    });

    it("reports false when trusting or revoking a missing device", async () => {
      expect(await stores.devices.markTrusted("no-device", T0 + DAY)).toBe(false);
      expect(await stores.devices.revokeTrust("no-device", T0)).toBe(false);
    });

    it("records the first session issued for a device and keeps it", async () => {
      await stores.devices.getOrCreate(aDevice());
      await stores.devices.markSessionIssued(DEVICE_ID, T0 + MINUTE);
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ sessionIssuedAt: T0 + MINUTE }));
      await stores.devices.markSessionIssued(DEVICE_ID, T0 + DAY);
      expect((await stores.devices.findById(DEVICE_ID))?.sessionIssuedAt).toBe(T0 + MINUTE);
      expect((await stores.devices.getOrCreate(aDevice({ id: "device-again", lastSeenAt: T0 + DAY }))).device.sessionIssuedAt).toBe(T0 + MINUTE);
      await stores.devices.markSessionIssued("no-device", T0);
      expect(await stores.devices.findById("no-device")).toBeNull();
    });

    it("trusts the device in the same write when markSessionIssued is given trustedUntil, keeping the first issuance", async () => {
      await stores.devices.getOrCreate(aDevice());
      await stores.devices.revokeTrust(DEVICE_ID, T0);
      await stores.devices.markSessionIssued(DEVICE_ID, T0 + MINUTE, T0 + 30 * DAY);
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ sessionIssuedAt: T0 + MINUTE, trusted: true, trustedUntil: T0 + 30 * DAY }));
      await stores.devices.markSessionIssued(DEVICE_ID, T0 + DAY, T0 + 40 * DAY);
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ sessionIssuedAt: T0 + MINUTE, trusted: true, trustedUntil: T0 + 40 * DAY }));
      await stores.devices.markSessionIssued("no-device", T0, T0 + DAY);
      expect(await stores.devices.findById("no-device")).toBeNull();
    });

    it("keeps exactly one issuance time among 20 concurrent markSessionIssued calls", async () => {
      await stores.devices.getOrCreate(aDevice());
      await times(20, (i) => stores.devices.markSessionIssued(DEVICE_ID, T0 + (i + 1) * MINUTE));
      const issuedAt = (await stores.devices.findById(DEVICE_ID))?.sessionIssuedAt ?? null;
      expect(Array.from({ length: 20 }, (_, i) => T0 + (i + 1) * MINUTE)).toContain(issuedAt);
    });

    it(`keeps at most ${MAX_DEVICES_PER_USER} devices a user: a new one deletes the least recently seen untrusted one, in any org`, async () => {
      const seen = (i: number) => T0 + i * MINUTE;
      await stores.devices.getOrCreate(
        aDevice({ id: "d-trusted-oldest", fingerprintHash: "fp-t", lastSeenAt: seen(0), trusted: true, trustedUntil: T0 + DAY }),
      );
      await stores.devices.getOrCreate(aDevice({ id: "d-expired-trust", fingerprintHash: "fp-e", lastSeenAt: seen(2), trusted: true, trustedUntil: seen(3) }));
      await stores.devices.getOrCreate(aDevice({ id: "d-other-org", orgId: OTHER_ORG_ID, lastSeenAt: seen(1) }));
      for (let i = 3; i < MAX_DEVICES_PER_USER; i++) {
        await stores.devices.getOrCreate(aDevice({ id: `d-${i}`, fingerprintHash: `fp-${i}`, lastSeenAt: seen(i) }));
      }
      await stores.devices.getOrCreate(aDevice({ id: "d-other-user", userId: OTHER_USER_ID, lastSeenAt: seen(0) }));
      const all = async () => [...(await stores.devices.listByUser(ORG_ID, USER_ID)), ...(await stores.devices.listByUser(OTHER_ORG_ID, USER_ID))];
      expect(await all()).toHaveLength(MAX_DEVICES_PER_USER);

      const at = seen(MAX_DEVICES_PER_USER);
      expect((await stores.devices.getOrCreate(aDevice({ id: "d-51", fingerprintHash: "fp-51", lastSeenAt: at }))).created).toBe(true);
      expect(await stores.devices.findById("d-other-org")).toBeNull();
      expect((await all()).map((device) => device.id)).toHaveLength(MAX_DEVICES_PER_USER);
      // Seen again, not created: nothing goes.
      await stores.devices.getOrCreate(aDevice({ id: "d-again", fingerprintHash: "fp-51", lastSeenAt: at + 1 }));
      expect(await all()).toHaveLength(MAX_DEVICES_PER_USER);
      await stores.devices.getOrCreate(aDevice({ id: "d-52", fingerprintHash: "fp-52", lastSeenAt: at + 2 }));
      // Its trust ran out: it counts as untrusted, and it is the least recently seen of those left.
      expect(await stores.devices.findById("d-expired-trust")).toBeNull();
      expect(await stores.devices.findById("d-trusted-oldest")).not.toBeNull();
      expect(await stores.devices.findById("d-other-user")).not.toBeNull();
      expect(await all()).toHaveLength(MAX_DEVICES_PER_USER);
    });

    it(`settles at ${MAX_DEVICES_PER_USER} devices when 10 sign-ins create new ones at once for a user who has ${MAX_DEVICES_PER_USER - 1}`, async () => {
      for (let i = 1; i < MAX_DEVICES_PER_USER; i++) {
        await stores.devices.getOrCreate(aDevice({ id: `d-old-${i}`, fingerprintHash: `fp-old-${i}`, lastSeenAt: T0 + i }));
      }
      // Each in a unit of work of its own, as a sign-in makes it: none sees the others' until it commits.
      const created = await times(10, (i) =>
        stores.transaction((tx) => tx.devices.getOrCreate(aDevice({ id: `d-new-${i}`, fingerprintHash: `fp-new-${i}`, lastSeenAt: T0 + DAY }))),
      );
      expect(created.every((result) => result.created)).toBe(true);
      const left = await stores.devices.listByUser(ORG_ID, USER_ID);
      expect(left).toHaveLength(MAX_DEVICES_PER_USER);
      // The least recently seen went: every device made now is kept.
      expect(left.filter((device) => device.id.startsWith("d-new-"))).toHaveLength(10);
    });

    it("deletes the devices neither trusted, nor seen since, nor in a session, and only those", async () => {
      const now = T0 + 100 * DAY;
      const seenBefore = now - 90 * DAY;
      const old = T0;
      await stores.devices.getOrCreate(aDevice({ id: "d-unused", fingerprintHash: "fp-1", lastSeenAt: old }));
      await stores.devices.getOrCreate(aDevice({ id: "d-trust-ran-out", fingerprintHash: "fp-2", lastSeenAt: old, trusted: true, trustedUntil: now }));
      await stores.devices.getOrCreate(aDevice({ id: "d-trusted", fingerprintHash: "fp-3", lastSeenAt: old, trusted: true, trustedUntil: now + 1 }));
      await stores.devices.getOrCreate(aDevice({ id: "d-recent", fingerprintHash: "fp-4", lastSeenAt: seenBefore }));
      await stores.devices.getOrCreate(aDevice({ id: "d-in-session", fingerprintHash: "fp-5", lastSeenAt: old }));
      await stores.sessions.create(aSession({ deviceId: "d-in-session", revokedAt: T0 }));

      expect(await stores.devices.deleteUnused(now, seenBefore)).toBe(2);
      expect(await stores.devices.deleteUnused(now, seenBefore)).toBe(0);
      expect(await stores.devices.findById("d-unused")).toBeNull();
      expect(await stores.devices.findById("d-trust-ran-out")).toBeNull();
      for (const kept of ["d-trusted", "d-recent", "d-in-session"]) expect((await stores.devices.findById(kept))?.id).toBe(kept);
    });

    it("runs rounds of 16 overlapping evictions at once, a millisecond apart across trusts that end between them, without a deadlock", async () => {
      // Half the devices' trust ends between the evictions' clocks: one eviction's first statement takes them as
      // trusted and another's does not, so row locks taken statement by statement would cross.
      const ids = Array.from({ length: 12 }, (_, i) => `d-${String(i).padStart(2, "0")}`);
      for (const [i, id] of ids.entries()) {
        await stores.devices.getOrCreate(aDevice({ id, fingerprintHash: `fp-${id}`, orgId: i % 3 === 0 ? OTHER_ORG_ID : ORG_ID }));
      }
      for (let round = 1; round <= 4; round++) await evictionRound(T0 + round * DAY, ids);
    });

    /** Trusts every device (half until just after `now`), then evicts them 16 times at once. */
    async function evictionRound(now: number, ids: readonly string[]): Promise<void> {
      for (const [i, id] of ids.entries()) await stores.devices.markSessionIssued(id, now - DAY, i % 2 === 0 ? now + 1 : now + 30 * DAY);
      const revoked = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          stores.devices.evictByUser(USER_ID, i % 2 === 0 ? now : now + 2, {
            keepDeviceId: ids[i % ids.length],
            ...(i % 4 === 3 ? { orgId: ORG_ID } : {}),
          }),
        ),
      );
      // Every device lost what trust it had at some eviction's clock, and is new again.
      expect(revoked.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(ids.length / 2);
      for (const id of ids) {
        const device = await stores.devices.findById(id);
        expect(device?.sessionIssuedAt).toBeNull();
        expect(device !== null && device.trusted && device.trustedUntil !== null && device.trustedUntil > now + 2).toBe(false);
      }
    }

    it("creates exactly one device among 20 concurrent getOrCreate calls for one key", async () => {
      const results = await times(20, (i) => stores.devices.getOrCreate(aDevice({ id: `device-race-${i}`, lastSeenAt: T0 + i })));
      expect(new Set(results.map((result) => result.device.id)).size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(await stores.devices.listByUser(ORG_ID, USER_ID)).toHaveLength(1);
    });
  });
}
