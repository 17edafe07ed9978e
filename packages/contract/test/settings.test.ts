import { describe, expect, it } from "vitest";
import {
  GetOrgMfaSettingsResponseSchema,
  GetPlatformSettingsResponseSchema,
  OrgMfaSettingsSchema,
  PlatformSettingsSchema,
  UpdateOrgMfaSettingsRequestSchema,
  UpdatePlatformSettingsRequestSchema,
} from "../src/gen/gatehouse/v1/admin_pb.ts";
import {
  orgMfaSettingsFromWire,
  orgMfaSettingsPatchFromJson,
  orgMfaSettingsPatchFromWire,
  orgMfaSettingsToJson,
  orgMfaSettingsToWire,
  platformSettingsFromWire,
  platformSettingsPatchFromJson,
  platformSettingsPatchFromWire,
  platformSettingsToJson,
  platformSettingsToWire,
  type OrgMfaSettingsView,
  type PlatformSettingsView,
} from "../src/settings.ts";
import { overTheWire, protoJson, refuse } from "./support/wire.ts";

const ORG_SETTINGS: readonly OrgMfaSettingsView[] = [
  {
    requireMfaNewDevice: true,
    requireMfaUntrustedDevice: true,
    trustDeviceAfterMfa: true,
    trustTtlDays: 30,
    allowedFactors: ["sms", "totp", "webauthn", "recovery_code"],
    requirePhishingResistant: false,
    stepUpMaxAgeMinutes: 15,
    extensionGraceMinutes: 5,
    requireBrowserExtension: false,
    enforcementReporting: "host_only",
    passkeySignIn: true,
    accessJwtAudience: "",
  },
  {
    requireMfaNewDevice: false,
    requireMfaUntrustedDevice: false,
    trustDeviceAfterMfa: false,
    trustTtlDays: 0,
    allowedFactors: ["totp"],
    requirePhishingResistant: true,
    stepUpMaxAgeMinutes: 1,
    extensionGraceMinutes: 0,
    requireBrowserExtension: true,
    enforcementReporting: "full",
    passkeySignIn: false,
    accessJwtAudience: "https://api.example.com/",
  },
];
const PLATFORM_SETTINGS: readonly PlatformSettingsView[] = [
  { mfaAlways: false, deviceTrustEnabled: true, maxTrustTtlDays: 90 },
  { mfaAlways: true, deviceTrustEnabled: false, maxTrustTtlDays: 0 },
];

describe("org MFA settings", () => {
  it.each(ORG_SETTINGS)("domain → wire → view is the same: %o", (settings) => {
    const answer = overTheWire(GetOrgMfaSettingsResponseSchema, { settings: orgMfaSettingsToWire(settings) });
    expect(orgMfaSettingsFromWire(answer.settings!)).toEqual(settings);
  });

  it.each(ORG_SETTINGS)("the JSON form is the proto's JSON, and as a patch sets every field: %o", (settings) => {
    const json = orgMfaSettingsToJson(settings);
    expect(json).toEqual(protoJson(OrgMfaSettingsSchema, orgMfaSettingsToWire(settings)));
    expect(orgMfaSettingsPatchFromJson(json, refuse)).toEqual(settings);
  });

  it("sends only the settings, nothing else the domain value holds", () => {
    expect(orgMfaSettingsToWire({ ...ORG_SETTINGS[0]!, orgId: "o" } as OrgMfaSettingsView)).toEqual(ORG_SETTINGS[0]);
  });

  it.each<[string, object]>([
    ["nothing", {}],
    ["one flag", { requireMfaNewDevice: false }],
    ["a zero", { trustTtlDays: 0 }],
    ["a false", { requirePhishingResistant: false }],
  ])("an update patches only the fields that are set: %s", (_, patch) => {
    expect(orgMfaSettingsPatchFromWire(overTheWire(UpdateOrgMfaSettingsRequestSchema, { orgId: "o", ...patch }), refuse)).toStrictEqual(patch);
  });

  it("an update sets the list of factors when the list is set, even empty (which the core refuses)", () => {
    const { allowedFactors, ...scalars } = ORG_SETTINGS[1]!;
    const request = overTheWire(UpdateOrgMfaSettingsRequestSchema, { orgId: "o", ...scalars, allowedFactors: { kinds: [...allowedFactors] } });
    expect(orgMfaSettingsPatchFromWire(request, refuse)).toStrictEqual(ORG_SETTINGS[1]);
    const empty = overTheWire(UpdateOrgMfaSettingsRequestSchema, { orgId: "o", allowedFactors: { kinds: [] } });
    expect(orgMfaSettingsPatchFromWire(empty, refuse)).toStrictEqual({ allowedFactors: [] });
  });

  it("refuses an enforcement_reporting it does not know on the wire, and reads one in an answer as the default", () => {
    const request = overTheWire(UpdateOrgMfaSettingsRequestSchema, { orgId: "o", enforcementReporting: "everything" });
    expect(() => orgMfaSettingsPatchFromWire(request, refuse)).toThrow(expect.objectContaining({ field: "enforcement_reporting" }));
    const answer = overTheWire(OrgMfaSettingsSchema, { ...orgMfaSettingsToWire(ORG_SETTINGS[1]!), enforcementReporting: "newer" });
    expect(orgMfaSettingsFromWire(answer).enforcementReporting).toBe("host_only");
  });

  it.each([[["sms", "email"]], [["totp", "totp"]]])("refuses the factor list %j on the wire, naming it", (kinds) => {
    const request = overTheWire(UpdateOrgMfaSettingsRequestSchema, { orgId: "o", allowedFactors: { kinds } });
    expect(() => orgMfaSettingsPatchFromWire(request, refuse)).toThrow(expect.objectContaining({ field: "allowed_factors" }));
  });

  it.each<[unknown, string, string]>([
    [[], "settings", "must be a JSON object"],
    [
      { trust_ttl: 3 },
      "trust_ttl",
      "unknown key (expected one of: require_mfa_new_device, require_mfa_untrusted_device, trust_device_after_mfa, trust_ttl_days, allowed_factors, require_phishing_resistant, step_up_max_age_minutes, passkey_sign_in, access_jwt_audience, extension_grace_minutes, require_browser_extension, enforcement_reporting)",
    ],
    [{ allowed_factors: "totp" }, "allowed_factors", "must be a list of distinct factor kinds (sms, totp, webauthn, recovery_code)"],
    [{ require_mfa_new_device: "yes" }, "require_mfa_new_device", "must be true or false"],
    [{ trust_ttl_days: 1.5 }, "trust_ttl_days", "must be a whole number"],
    [{ access_jwt_audience: null }, "access_jwt_audience", "must be a string"],
    [{ trust_ttl_days: "30" }, "trust_ttl_days", "must be a whole number"],
  ])("refuses the JSON patch %j naming the key", (json, field, problem) => {
    expect(() => orgMfaSettingsPatchFromJson(json, refuse)).toThrow(expect.objectContaining({ field, problem }));
  });
});

describe("platform settings", () => {
  it.each(PLATFORM_SETTINGS)("domain → wire → view is the same: %o", (settings) => {
    const answer = overTheWire(GetPlatformSettingsResponseSchema, { settings: platformSettingsToWire(settings) });
    expect(platformSettingsFromWire(answer.settings!)).toEqual(settings);
  });

  it.each(PLATFORM_SETTINGS)("the JSON form is the proto's JSON, and as a patch sets every field: %o", (settings) => {
    const json = platformSettingsToJson(settings);
    expect(json).toEqual(protoJson(PlatformSettingsSchema, settings));
    expect(platformSettingsPatchFromJson(json, refuse)).toEqual(settings);
  });

  it.each<[string, object]>([
    ["nothing", {}],
    ["one flag", { mfaAlways: true }],
    ["a zero", { maxTrustTtlDays: 0 }],
  ])("an update patches only the fields that are set: %s", (_, patch) => {
    expect(platformSettingsPatchFromWire(overTheWire(UpdatePlatformSettingsRequestSchema, patch))).toStrictEqual(patch);
  });

  it.each<[unknown, string, string]>([
    [null, "settings", "must be a JSON object"],
    [{ mfa: true }, "mfa", "unknown key (expected one of: mfa_always, device_trust_enabled, max_trust_ttl_days)"],
    [{ device_trust_enabled: 1 }, "device_trust_enabled", "must be true or false"],
  ])("refuses the JSON patch %j naming the key", (json, field, problem) => {
    expect(() => platformSettingsPatchFromJson(json, refuse)).toThrow(expect.objectContaining({ field, problem }));
  });
});
