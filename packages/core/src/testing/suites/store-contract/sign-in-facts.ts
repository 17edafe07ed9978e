import { beforeEach, describe, expect, it } from "vitest";
import type { OrgMfaSettings } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import {
  aDevice,
  aUser,
  DAY,
  DEVICE_ID,
  ORG_ID,
  OTHER_ORG_DEVICE_ID,
  OTHER_ORG_ID,
  OTHER_USER_DEVICE_ID,
  OTHER_USER_ID,
  seedGraph,
  T0,
  USER_ID,
} from "./fixtures.ts";

const PLATFORM = {
  mfaAlways: true,
  deviceTrustEnabled: false,
  maxTrustTtlDays: 7,
  smsAllowedCountries: ["US"],
  smsRefusedCountries: ["SO"],
  smsRefusedNumberTypes: ["premium_rate" as const],
};
const ORG_SETTINGS: OrgMfaSettings = {
  requireMfaNewDevice: false,
  requireMfaUntrustedDevice: true,
  trustDeviceAfterMfa: false,
  trustTtlDays: 3,
  allowedFactors: ["sms", "totp"],
  requirePhishingResistant: false,
  passkeySignIn: false,
  stepUpMaxAgeMinutes: 10,
  extensionGraceMinutes: 30,
  requireBrowserExtension: true,
  enforcementReporting: "host_only",
  smsAllowedCountries: ["US"],
  accessJwtAudience: "urn:gatehouse:test-api",
};

/** `SignInFactsStore.read`: user, membership, device and settings of one sign-in, in one read. */
export function describeSignInFactsContract(current: () => Stores): void {
  describe("sign-in facts (user + membership + device + settings in one read)", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
    });

    it("reads the user, the membership, the device and both settings rows as stored", async () => {
      await stores.users.setVerifiedPhone(USER_ID, "+15550100");
      await stores.devices.markTrusted(DEVICE_ID, T0 + 30 * DAY);
      await stores.devices.markSessionIssued(DEVICE_ID, T0 + 1);
      await stores.settings.putPlatform(PLATFORM);
      await stores.settings.putOrg(ORG_ID, ORG_SETTINGS);
      expect(await stores.signInFacts.read(USER_ID, ORG_ID, DEVICE_ID)).toEqual({
        user: aUser({ phone: "+15550100", phoneVerified: true }),
        membership: { orgId: ORG_ID, userId: USER_ID, role: "admin" },
        device: aDevice({ trusted: true, trustedUntil: T0 + 30 * DAY, sessionIssuedAt: T0 + 1 }),
        settings: { platform: PLATFORM, org: ORG_SETTINGS },
      });
    });

    it("answers null for a user that does not exist", async () => {
      expect(await stores.signInFacts.read("no-such-user", ORG_ID, DEVICE_ID)).toBeNull();
    });

    it("gives a null membership for a user outside the org, and nulls for settings never stored", async () => {
      expect(await stores.signInFacts.read(OTHER_USER_ID, ORG_ID, null)).toEqual({
        user: aUser({ id: OTHER_USER_ID, email: "grace@example.com" }),
        membership: null,
        device: null,
        settings: { platform: null, org: null },
      });
    });

    it("reads the device only when it is the user's in this org", async () => {
      const deviceOf = async (userId: string, orgId: string, deviceId: string | null) => (await stores.signInFacts.read(userId, orgId, deviceId))?.device;
      expect(await deviceOf(USER_ID, ORG_ID, DEVICE_ID)).toEqual(aDevice());
      expect(await deviceOf(USER_ID, ORG_ID, null)).toBeNull();
      expect(await deviceOf(USER_ID, ORG_ID, "no-such-device")).toBeNull();
      expect(await deviceOf(USER_ID, ORG_ID, OTHER_USER_DEVICE_ID)).toBeNull();
      expect(await deviceOf(USER_ID, ORG_ID, OTHER_ORG_DEVICE_ID)).toBeNull();
      expect(await deviceOf(USER_ID, OTHER_ORG_ID, OTHER_ORG_DEVICE_ID)).toEqual(aDevice({ id: OTHER_ORG_DEVICE_ID, orgId: OTHER_ORG_ID }));
      expect((await stores.signInFacts.read(USER_ID, OTHER_ORG_ID, OTHER_ORG_DEVICE_ID))?.membership).toBeNull();
    });

    it("reads what the unit of work it runs in has written, and nothing of a rolled-back one", async () => {
      await expect(
        stores.transaction(async (tx) => {
          await tx.orgs.removeMembership(ORG_ID, USER_ID);
          await tx.settings.putOrg(ORG_ID, ORG_SETTINGS);
          const inside = await tx.signInFacts.read(USER_ID, ORG_ID, DEVICE_ID);
          expect(inside?.membership).toBeNull();
          expect(inside?.settings.org).toEqual(ORG_SETTINGS);
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      const after = await stores.signInFacts.read(USER_ID, ORG_ID, DEVICE_ID);
      expect(after?.membership).toEqual({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
      expect(after?.settings.org).toBeNull();
    });
  });
}
