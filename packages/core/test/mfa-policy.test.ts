import { describe, expect, it } from "vitest";
import { evaluateMfaPolicy, isEffectivelyTrusted } from "../src/sign-in/mfa-policy.ts";
import { DEFAULT_ORG_MFA_SETTINGS, DEFAULT_PLATFORM_SETTINGS, type Device } from "../src/model.ts";

const NOW = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;

const device = (trust: Partial<Pick<Device, "trusted" | "trustedUntil" | "trustRevokedAt">> = {}): Device => ({
  id: "d",
  userId: "u",
  orgId: "o",
  fingerprintHash: "f",
  userAgent: null,
  lastAddress: null,
  trusted: false,
  trustedUntil: null,
  trustRevokedAt: null,
  createdAt: 0,
  lastSeenAt: 0,
  sessionIssuedAt: null,
  ...trust,
});

const trusted = device({ trusted: true, trustedUntil: NOW + DAY });
const untrusted = device();

describe("isEffectivelyTrusted", () => {
  it.each([
    ["trusted, running", trusted, true],
    ["never trusted", untrusted, false],
    ["trust expired", device({ trusted: true, trustedUntil: NOW - 1 }), false],
    ["trust ends exactly now", device({ trusted: true, trustedUntil: NOW }), false],
    ["trust revoked", device({ trusted: true, trustedUntil: NOW + DAY, trustRevokedAt: NOW - 1 }), false],
    ["flag off with a future date", device({ trusted: false, trustedUntil: NOW + DAY }), false],
  ])("%s", (_name, d, expected) => {
    expect(isEffectivelyTrusted(d, NOW)).toBe(expected);
  });
});

describe("evaluateMfaPolicy: MFARequired", () => {
  // Every input that can change MFARequired: mfa_always, new device x require_mfa_new_device,
  // effectively trusted x require_mfa_untrusted_device.
  it.each`
    mfaAlways | isNew    | reqNew   | dev          | reqUntrusted | required
    ${true}   | ${false} | ${false} | ${trusted}   | ${false}     | ${true}
    ${true}   | ${true}  | ${true}  | ${untrusted} | ${true}      | ${true}
    ${false}  | ${false} | ${false} | ${trusted}   | ${false}     | ${false}
    ${false}  | ${false} | ${false} | ${untrusted} | ${false}     | ${false}
    ${false}  | ${true}  | ${true}  | ${untrusted} | ${false}     | ${true}
    ${false}  | ${true}  | ${false} | ${untrusted} | ${false}     | ${false}
    ${false}  | ${false} | ${true}  | ${untrusted} | ${false}     | ${false}
    ${false}  | ${true}  | ${true}  | ${trusted}   | ${false}     | ${true}
    ${false}  | ${false} | ${true}  | ${trusted}   | ${false}     | ${false}
    ${false}  | ${false} | ${false} | ${untrusted} | ${true}      | ${true}
    ${false}  | ${false} | ${false} | ${trusted}   | ${true}      | ${false}
    ${false}  | ${true}  | ${false} | ${trusted}   | ${true}      | ${false}
    ${false}  | ${true}  | ${false} | ${untrusted} | ${true}      | ${true}
  `("always=$mfaAlways new=$isNew reqNew=$reqNew reqUntrusted=$reqUntrusted → $required", ({ mfaAlways, isNew, reqNew, dev, reqUntrusted, required }) => {
    const result = evaluateMfaPolicy({
      platform: { ...DEFAULT_PLATFORM_SETTINGS, mfaAlways },
      org: { ...DEFAULT_ORG_MFA_SETTINGS, requireMfaNewDevice: reqNew, requireMfaUntrustedDevice: reqUntrusted },
      device: dev,
      isNewDevice: isNew,
      now: NOW,
    });
    expect(result.mfaRequired).toBe(required);
  });

  it("an expired or revoked trust counts as untrusted", () => {
    const org = { ...DEFAULT_ORG_MFA_SETTINGS, requireMfaNewDevice: false, requireMfaUntrustedDevice: true };
    for (const d of [device({ trusted: true, trustedUntil: NOW }), device({ trusted: true, trustedUntil: NOW + DAY, trustRevokedAt: NOW })]) {
      expect(evaluateMfaPolicy({ platform: DEFAULT_PLATFORM_SETTINGS, org, device: d, isNewDevice: false, now: NOW }).mfaRequired).toBe(true);
    }
  });
});

describe("evaluateMfaPolicy: trust registration", () => {
  it.each`
    trustEnabled | afterMfa | orgTtl | maxTtl | register | ttl
    ${true}      | ${true}  | ${30}  | ${90}  | ${true}  | ${30}
    ${true}      | ${true}  | ${120} | ${90}  | ${true}  | ${90}
    ${true}      | ${true}  | ${30}  | ${0}   | ${false} | ${0}
    ${true}      | ${true}  | ${0}   | ${90}  | ${false} | ${0}
    ${false}     | ${true}  | ${30}  | ${90}  | ${false} | ${30}
    ${true}      | ${false} | ${30}  | ${90}  | ${false} | ${30}
    ${false}     | ${false} | ${30}  | ${90}  | ${false} | ${30}
  `(
    "enabled=$trustEnabled afterMfa=$afterMfa ttl=min($orgTtl,$maxTtl) → register=$register ttl=$ttl",
    ({ trustEnabled, afterMfa, orgTtl, maxTtl, register, ttl }) => {
      const result = evaluateMfaPolicy({
        platform: { ...DEFAULT_PLATFORM_SETTINGS, mfaAlways: false, deviceTrustEnabled: trustEnabled, maxTrustTtlDays: maxTtl },
        org: { ...DEFAULT_ORG_MFA_SETTINGS, trustDeviceAfterMfa: afterMfa, trustTtlDays: orgTtl },
        device: untrusted,
        isNewDevice: false,
        now: NOW,
      });
      expect(result.registerTrustAfterMfa).toBe(register);
      expect(result.trustTtlDays).toBe(ttl);
    },
  );

  it("defaults: MFA on new and on untrusted devices, trust 30 days after MFA", () => {
    const defaults = { platform: DEFAULT_PLATFORM_SETTINGS, org: DEFAULT_ORG_MFA_SETTINGS, now: NOW };
    expect(DEFAULT_ORG_MFA_SETTINGS.requireMfaUntrustedDevice).toBe(true);
    const fresh = evaluateMfaPolicy({ ...defaults, device: untrusted, isNewDevice: true });
    expect(fresh).toEqual({ mfaRequired: true, registerTrustAfterMfa: true, trustTtlDays: 30 });
    expect(evaluateMfaPolicy({ ...defaults, device: untrusted, isNewDevice: false }).mfaRequired).toBe(true);
    expect(evaluateMfaPolicy({ ...defaults, device: device({ trusted: true, trustedUntil: NOW - 1 }), isNewDevice: false }).mfaRequired).toBe(true);
    expect(evaluateMfaPolicy({ ...defaults, device: trusted, isNewDevice: false }).mfaRequired).toBe(false);
  });
});
