/**
 * A device fingerprint is a bearer secret: with the password, a trusted one skips the second factor. The store
 * keeps only its keyed hash, every listing shows a label instead, and the spec's shared default fingerprint
 * (`password-login`, every client that sends none) is never trusted.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_DEVICE_FINGERPRINT, type OrgMfaSettings } from "../src/index.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const SYSTEM = { kind: "system" } as const;
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/** A sign-in that sends no fingerprint: the spec's `password-login` device. */
const loginWithout = (h: Harness) => h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId });

async function verify(h: Harness, outcome: Awaited<ReturnType<Harness["login"]>>) {
  if (outcome.kind === "tokens") throw new Error("expected a second factor to be asked");
  const challengeId =
    outcome.kind === "phone_required"
      ? (await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15551234567" })).challengeId
      : outcome.challenge.challengeId;
  return h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! });
}

describe("the shared default fingerprint is never trusted", () => {
  const RULES: readonly [string, Partial<OrgMfaSettings>][] = [
    ["MFA for new devices only", { requireMfaNewDevice: true, requireMfaUntrustedDevice: false }],
    ["MFA for untrusted devices only", { requireMfaNewDevice: false, requireMfaUntrustedDevice: true }],
    ["MFA for both", {}],
  ];

  it.each(RULES)("%s: every sign-in without a fingerprint asks for the second factor, however often it was passed", async (_, rules) => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { trustDeviceAfterMfa: true, ...rules } });
    await verify(h, await loginWithout(h));
    for (let i = 0; i < 2; i++) expect((await loginWithout(h)).kind).toBe("mfa_required");
    const [shared] = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(shared).toMatchObject({ fingerprintHash: h.fingerprintHash(DEFAULT_DEVICE_FINGERPRINT), trusted: false, trustedUntil: null });
    expect((await h.gatehouse.admin.listAuditEvents(SYSTEM, { kinds: ["device.trusted"] })).events).toEqual([]);
  });

  it("the literal fingerprint `password-login` is the same shared device, and gets no trust either", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    await verify(h, await h.login(DEFAULT_DEVICE_FINGERPRINT));
    expect((await loginWithout(h)).kind).toBe("mfa_required");
    expect((await h.login(DEFAULT_DEVICE_FINGERPRINT)).kind).toBe("mfa_required");
  });

  it("a session on it keeps refreshing while the org asks MFA of new devices only: it proved the factor at sign-in", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    const tokens = await verify(h, await loginWithout(h));
    expect((await h.gatehouse.refresh({ refreshToken: tokens.refreshToken })).kind).toBe("tokens");
  });

  it("a device with its own fingerprint is still trusted after MFA and skips the second factor", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    expect((await h.login("laptop")).kind).toBe("tokens");
  });
});

describe("a fingerprint is never stored nor shown", () => {
  it("the store holds the keyed hash; the user's, the org admin's and the operator's listings show a label, the user agent and the address", async () => {
    const h = await createHarness();
    const request = { userAgent: FIREFOX, clientIp: "203.0.113.9" };
    const outcome = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "my-secret-laptop", request });
    await verify(h, outcome);
    const [stored] = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(JSON.stringify(stored)).not.toContain("my-secret-laptop");
    expect(stored).toMatchObject({ fingerprintHash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown, userAgent: FIREFOX, lastAddress: "203.0.113.9" });

    const expected = { id: stored!.id, label: "Firefox on Linux", userAgent: FIREFOX, lastAddress: "203.0.113.9", trusted: true };
    const admin = await h.gatehouse.admin.listUserDevices(SYSTEM, { orgId: h.orgId, userId: h.userId });
    const operator = await h.gatehouse.admin.listDevicesOfUser(SYSTEM, { userId: h.userId });
    for (const listing of [admin, operator]) {
      expect(listing).toEqual([expect.objectContaining({ ...expected, current: false })]);
      expect(Object.keys(listing[0]!)).not.toContain("fingerprintHash");
    }
    const sessions = await h.gatehouse.admin.listSessionsOfUser(SYSTEM, { userId: h.userId });
    expect(sessions).toEqual([
      expect.objectContaining({ deviceId: stored!.id, deviceLabel: "Firefox on Linux", userAgent: FIREFOX, lastAddress: "203.0.113.9" }),
    ]);
  });

  it("a later sign-in from the device records its new address and user agent", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
    const signIn = (clientIp: string, userAgent?: string) =>
      h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop", request: { clientIp, userAgent } });
    await signIn("192.0.2.1", FIREFOX);
    h.clock.advance(60_000);
    await signIn("192.0.2.2");
    const [device] = await h.gatehouse.admin.listUserDevices(SYSTEM, { orgId: h.orgId, userId: h.userId });
    expect(device).toMatchObject({ lastAddress: "192.0.2.2", userAgent: null, label: "Unknown device" });
  });
});
