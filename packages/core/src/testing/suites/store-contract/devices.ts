import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { T0, MINUTE, DAY, USER_ID, OTHER_USER_ID, ORG_ID, OTHER_ORG_ID, DEVICE_ID, aUser, anOrg, aDevice, expectRejectionKind, times } from "./fixtures.ts";

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
      const device = aDevice({ trusted: true, trustedUntil: T0 + 30 * DAY, trustRevokedAt: T0 - DAY, sessionIssuedAt: T0 - 2 * DAY });
      expect(await stores.devices.getOrCreate(device)).toEqual({ device, created: true });
      expect(await stores.devices.findById(DEVICE_ID)).toEqual(device);
      expect(await stores.devices.findById("no-device")).toBeNull();
    });

    it("returns the existing device for a known key and updates lastSeenAt only", async () => {
      const original = aDevice();
      await stores.devices.getOrCreate(original);
      const again = await stores.devices.getOrCreate(aDevice({ id: "device-other-id", createdAt: T0 + DAY, lastSeenAt: T0 + DAY }));
      expect(again).toEqual({ device: { ...original, lastSeenAt: T0 + DAY }, created: false });
      expect(await stores.devices.findById(DEVICE_ID)).toEqual({ ...original, lastSeenAt: T0 + DAY });
      expect(await stores.devices.findById("device-other-id")).toBeNull();
    });

    it("keys devices by user, org and fingerprint", async () => {
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

    it("creates exactly one device among 20 concurrent getOrCreate calls for one key", async () => {
      const results = await times(20, (i) => stores.devices.getOrCreate(aDevice({ id: `device-race-${i}`, lastSeenAt: T0 + i })));
      expect(new Set(results.map((result) => result.device.id)).size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(await stores.devices.listByUser(ORG_ID, USER_ID)).toHaveLength(1);
    });
  });
}
