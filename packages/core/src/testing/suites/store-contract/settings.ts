import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ORG_MFA_SETTINGS, type PlatformSettings } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import { ORG_ID, OTHER_ORG_ID, seedGraph } from "./fixtures.ts";

/** The `SettingsStore` contract; `current` returns the fresh stores of the running test. */
export function describeSettingsContract(current: () => Stores): void {
  describe("settings", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    beforeEach(async () => {
      await seedGraph(stores);
    });

    it("returns null for platform settings never stored, then round-trips and replaces them", async () => {
      expect(await stores.settings.getPlatform()).toBeNull();
      await stores.settings.putPlatform({
        mfaAlways: true,
        deviceTrustEnabled: false,
        maxTrustTtlDays: 7,
        smsAllowedCountries: ["US", "GB"],
        smsRefusedCountries: ["SO", "CU"],
        smsRefusedNumberTypes: ["premium_rate"],
      });
      expect(await stores.settings.getPlatform()).toEqual({
        mfaAlways: true,
        deviceTrustEnabled: false,
        maxTrustTtlDays: 7,
        smsAllowedCountries: ["US", "GB"],
        smsRefusedCountries: ["SO", "CU"],
        smsRefusedNumberTypes: ["premium_rate"],
      });
      await stores.settings.putPlatform({
        mfaAlways: false,
        deviceTrustEnabled: true,
        maxTrustTtlDays: 90,
        smsAllowedCountries: [],
        smsRefusedCountries: [],
        smsRefusedNumberTypes: [],
      });
      expect(await stores.settings.getPlatform()).toEqual({
        mfaAlways: false,
        deviceTrustEnabled: true,
        maxTrustTtlDays: 90,
        smsAllowedCountries: [],
        smsRefusedCountries: [],
        smsRefusedNumberTypes: [],
      });
    });

    it("returns null for org settings never stored, then round-trips them per org", async () => {
      const settings = {
        requireMfaNewDevice: false,
        requireMfaUntrustedDevice: true,
        trustDeviceAfterMfa: false,
        trustTtlDays: 0,
        smsAllowedCountries: ["FR"],
        allowedFactors: ["totp", "recovery_code"] as const,
        requirePhishingResistant: true,
        passkeySignIn: false,
        stepUpMaxAgeMinutes: 5,
        accessJwtAudience: "https://api.example.com/",
        extensionGraceMinutes: 0,
        requireBrowserExtension: true,
        enforcementReporting: "full" as const,
      };
      expect(await stores.settings.getOrg(ORG_ID)).toBeNull();
      await stores.settings.putOrg(ORG_ID, settings);
      expect(await stores.settings.getOrg(ORG_ID)).toEqual(settings);
      expect(await stores.settings.getOrg(OTHER_ORG_ID)).toBeNull();
      const replaced = {
        requireMfaNewDevice: true,
        requireMfaUntrustedDevice: false,
        trustDeviceAfterMfa: true,
        trustTtlDays: 30,
        allowedFactors: ["sms"] as const,
        requirePhishingResistant: false,
        passkeySignIn: true,
        stepUpMaxAgeMinutes: 60,
        extensionGraceMinutes: 1440,
        requireBrowserExtension: false,
        enforcementReporting: "off" as const,
        smsAllowedCountries: [],
        accessJwtAudience: "",
      };
      await stores.settings.putOrg(ORG_ID, replaced);
      expect(await stores.settings.getOrg(ORG_ID)).toEqual(replaced);
    });

    it("reads the platform and one org's settings together, each null while never stored", async () => {
      expect(await stores.settings.getForOrg(ORG_ID)).toEqual({ platform: null, org: null });
      const org = { ...DEFAULT_ORG_MFA_SETTINGS, requireMfaUntrustedDevice: false, trustTtlDays: 0, smsAllowedCountries: ["DE", "AT"] };
      await stores.settings.putOrg(ORG_ID, org);
      expect(await stores.settings.getForOrg(ORG_ID)).toEqual({ platform: null, org });
      const platform: PlatformSettings = {
        mfaAlways: false,
        deviceTrustEnabled: true,
        maxTrustTtlDays: 0,
        smsAllowedCountries: ["DE"],
        smsRefusedCountries: ["LV"],
        smsRefusedNumberTypes: ["uan", "fixed_line"],
      };
      await stores.settings.putPlatform(platform);
      expect(await stores.settings.getForOrg(ORG_ID)).toEqual({ platform, org });
      expect(await stores.settings.getForOrg(OTHER_ORG_ID)).toEqual({ platform, org: null });
    });
  });
}
