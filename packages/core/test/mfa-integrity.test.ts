/**
 * Issue 15, "MFA that cannot be skipped": one test (or table) per bypass, each failing on the code
 * before the fix. docs/security.md names them threat by threat.
 */
import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const DAY = 86_400_000;
const SYSTEM = { kind: "system" } as const;

async function expectError(promise: Promise<unknown>, kind: string, message?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  expect((error as GatehouseError).kind).toBe(kind);
  if (message !== undefined) expect((error as GatehouseError).message).toBe(message);
  return error as GatehouseError;
}

/** Stored settings that only ask for MFA on new devices, so the new-device rule is tested alone. */
async function newDeviceRuleOnly(h: Harness) {
  await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false, trustDeviceAfterMfa: false } });
}

async function phoneRequired(h: Harness, fingerprint: string) {
  const outcome = await h.login(fingerprint);
  if (outcome.kind !== "phone_required") throw new Error(`expected phone_required, got ${outcome.kind}`);
  return outcome.intent.intentId;
}

describe("1. a device is new until a session has been issued for it", () => {
  it("logging in twice on a new device still needs MFA: the abandoned first MFA leaves it new", async () => {
    const h = await createHarness();
    await newDeviceRuleOnly(h);
    expect((await h.login("laptop")).kind).toBe("phone_required");
    expect((await h.login("laptop")).kind).toBe("phone_required");
  });

  it("the same holds for the password-login device (no fingerprint)", async () => {
    const h = await createHarness();
    await newDeviceRuleOnly(h);
    const noFingerprint = () => h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId });
    expect((await noFingerprint()).kind).toBe("phone_required");
    expect((await noFingerprint()).kind).toBe("phone_required");
  });

  it("after VerifyMFA issued a session the device is known; one that only saw a challenge is still new", async () => {
    const h = await createHarness();
    await newDeviceRuleOnly(h);
    await signInWithPhone(h, "laptop");
    expect((await h.login("laptop")).kind).toBe("tokens");
    expect((await h.login("tablet")).kind).toBe("mfa_required");
    expect((await h.login("tablet")).kind).toBe("mfa_required");
    const devices = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(devices.map((d) => [d.fingerprintHash, d.sessionIssuedAt !== null])).toEqual([
      [h.fingerprintHash("laptop"), true],
      [h.fingerprintHash("tablet"), false],
    ]);
  });

  it("a Refresh naming another fingerprint than the session's device makes no device known: it is refused", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
    const first = await h.login("laptop");
    if (first.kind !== "tokens") throw new Error("expected tokens");
    await expect(h.gatehouse.refresh({ refreshToken: first.tokens.refreshToken, deviceFingerprint: "tablet" })).rejects.toMatchObject({
      kind: "unauthenticated",
    });
    expect((await h.stores.devices.listByUser(h.orgId, h.userId)).map((d) => d.fingerprintHash)).toEqual([h.fingerprintHash("laptop")]);
  });
});

describe("2. require_mfa_untrusted_device is on by default", () => {
  it("a device whose trust expired signs in → MFA under the defaults", async () => {
    const h = await createHarness();
    expect(await h.stores.settings.getOrg(h.orgId)).toBeNull();
    await signInWithPhone(h, "laptop");
    h.clock.advance(29 * DAY);
    expect((await h.login("laptop")).kind).toBe("tokens");
    h.clock.advance(DAY);
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });

  it("an org that stored its settings keeps them", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    await signInWithPhone(h, "laptop");
    h.clock.advance(30 * DAY);
    expect((await h.login("laptop")).kind).toBe("tokens");
  });
});

describe("3. a session acts only for the org it was issued for", () => {
  async function twoOrgs() {
    const h = await createHarness();
    const { orgId: otherOrgId } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: otherOrgId, email: "ada@example.com", role: "admin" });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "ada@example.com", role: "admin" });
    const tokens = await signInWithPhone(h, "laptop");
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    return { h, otherOrgId, principal };
  }

  it("browser policy and check-url for another org → permission_denied", async () => {
    const { h, otherOrgId, principal } = await twoOrgs();
    await expect(h.gatehouse.getBrowserPolicy(principal, h.orgId)).resolves.toBeTruthy();
    await expectError(h.gatehouse.getBrowserPolicy(principal, otherOrgId), "permission_denied");
    await expectError(h.gatehouse.checkUrlAccess(principal, otherOrgId, "https://example.com/"), "permission_denied");
  });

  it("every org-scoped admin operation for another org → permission_denied, platform admins included", async () => {
    const { h, otherOrgId, principal } = await twoOrgs();
    await h.stores.users.create({ ...(await h.stores.users.findById(h.userId))!, id: "unused", email: "unused@example.com" });
    const admin = h.gatehouse.admin;
    const actor = { kind: "user", userId: principal.userId, orgId: principal.orgId } as const;
    const operations = [
      () => admin.addMember(actor, { orgId: otherOrgId, email: "unused@example.com", role: "member" }),
      () => admin.removeMember(actor, { orgId: otherOrgId, userId: h.userId }),
      () => admin.getOrgMfaSettings(actor, { orgId: otherOrgId }),
      () => admin.updateOrgMfaSettings(actor, { orgId: otherOrgId, patch: { requireMfaNewDevice: false } }),
      () => admin.getOrgBrowserPolicy(actor, { orgId: otherOrgId }),
      () =>
        admin.updateOrgBrowserPolicy(actor, {
          orgId: otherOrgId,
          policy: {
            accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "allow", wildcardSupported: true },
            actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
          },
        }),
      () => admin.listUserDevices(actor, { orgId: otherOrgId, userId: h.userId }),
      () => admin.revokeDeviceTrust(actor, { orgId: otherOrgId, deviceId: "any-device" }),
      () => admin.revokeUserSessions(actor, { orgId: otherOrgId, userId: h.userId }),
    ];
    // A platform admin is no exception.
    const user = (await h.stores.users.findById(h.userId))!;
    await h.stores.users.create({ ...user, id: "root", email: "root@example.com", platformAdmin: true });
    const rootActor = { kind: "user", userId: "root", orgId: h.orgId } as const;
    for (const operation of operations) await expectError(operation(), "permission_denied", "this session was issued for another organization");
    await expectError(admin.getOrgMfaSettings(rootActor, { orgId: otherOrgId }), "permission_denied");
    await expect(admin.getOrgMfaSettings(actor, { orgId: h.orgId })).resolves.toBeTruthy();
    await expect(admin.getPlatformSettings(rootActor)).resolves.toBeTruthy();
    expect(await h.stores.settings.getOrg(otherOrgId)).toBeNull();
  });
});

describe("4. VerifyMFA proves the user's own phone", () => {
  async function twoChallenges() {
    const h = await createHarness();
    const first = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: await phoneRequired(h, "laptop"), phone: "+15550001111" });
    const second = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: await phoneRequired(h, "tablet"), phone: "+15550002222" });
    const otpOf = (challengeId: string) => h.sms.lastOtpFor(challengeId)!;
    return { h, first: first.challengeId, second: second.challengeId, otpOf };
  }

  it("two intents, two phones: after the first locks the phone, the second is refused as an invalid challenge", async () => {
    const { h, first, second, otpOf } = await twoChallenges();
    await h.gatehouse.verifyMfa({ challengeId: first, otp: otpOf(first) });
    await expectError(h.gatehouse.verifyMfa({ challengeId: second, otp: otpOf(second) }), "invalid_mfa_challenge", "invalid or expired MFA challenge");
    expect(await h.stores.users.findById(h.userId)).toMatchObject({ phone: "+15550001111", phoneVerified: true });
  });

  it("the two verified at once: exactly one gets tokens, the phone is the winner's", async () => {
    const { h, first, second, otpOf } = await twoChallenges();
    const results = await Promise.allSettled([
      h.gatehouse.verifyMfa({ challengeId: first, otp: otpOf(first) }),
      h.gatehouse.verifyMfa({ challengeId: second, otp: otpOf(second) }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const loser = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect((loser.reason as GatehouseError).kind).toBe("invalid_mfa_challenge");
  });

  it("a member removed after Login cannot SubmitPhone or VerifyMFA: permission denied", async () => {
    const h = await createHarness();
    const intentId = await phoneRequired(h, "laptop");
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: await phoneRequired(h, "tablet"), phone: "+15550001111" });
    await h.stores.orgs.removeMembership(h.orgId, h.userId);
    await expectError(h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "+15550001111" }), "not_org_member");
    await expectError(h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! }), "not_org_member");
    expect(await h.stores.users.findById(h.userId)).toMatchObject({ phoneVerified: false });
  });
});

describe("8. an expired challenge stays expired", () => {
  it("every call after expiry answers challenge_expired and the challenge is left unchanged", async () => {
    const h = await createHarness();
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: await phoneRequired(h, "laptop"), phone: "+15550001111" });
    const otp = h.sms.lastOtpFor(challengeId)!;
    const before = await h.stores.challenges.findById(challengeId);
    h.clock.advance(10 * 60_000);
    for (let call = 1; call <= 7; call++) await expectError(h.gatehouse.verifyMfa({ challengeId, otp }), "challenge_expired", "MFA challenge expired");
    expect(await h.stores.challenges.findById(challengeId)).toEqual(before);
  });

  it("50 concurrent verifications of an expired challenge: all challenge_expired, no attempt spent", async () => {
    const h = await createHarness();
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: await phoneRequired(h, "laptop"), phone: "+15550001111" });
    h.clock.advance(10 * 60_000);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => h.gatehouse.verifyMfa({ challengeId, otp: "000000" })));
    expect(results.every((r) => r.status === "rejected" && (r.reason as GatehouseError).kind === "challenge_expired")).toBe(true);
    expect((await h.stores.challenges.findById(challengeId))?.attempts).toBe(0);
  });
});

describe("inputs: control, format and private-use characters; email normalisation", () => {
  const bad = ["\u0000", "\u0007", "\u200b", "\u202e", "\u2066", "\ufeff", "\ue000", "\ud800"];

  it.each(bad)("an email containing %j → invalid_argument naming email, on Register and Login", async (character) => {
    const h = await createHarness();
    const email = `ada${character}@example.com`;
    expect((await expectError(h.gatehouse.register({ email, password: PASSWORD }), "invalid_argument")).details.field).toBe("email");
    expect((await expectError(h.gatehouse.login({ email, password: PASSWORD, orgId: h.orgId }), "invalid_argument")).details.field).toBe("email");
  });

  it.each([
    [
      "device_fingerprint",
      (h: Harness) => h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "lap\u200btop" }),
    ],
    ["display_name", (h: Harness) => h.gatehouse.register({ email: "new@example.com", password: PASSWORD, displayName: "Ada\u202e" })],
    ["password", (h: Harness) => h.gatehouse.login({ email: "ada@example.com", password: `${PASSWORD}\u0000`, orgId: h.orgId })],
    ["password", (h: Harness) => h.gatehouse.register({ email: "new@example.com", password: `${PASSWORD}\ud800` })],
    ["name", (h: Harness) => h.gatehouse.admin.createOrg(SYSTEM, { name: "Acme\u0000" })],
    ["refresh_token", (h: Harness) => h.gatehouse.refresh({ refreshToken: "gh_rt_\u0000" })],
  ])("%s with a refused character → invalid_argument naming it", async (field, call) => {
    const h = await createHarness();
    expect((await expectError(call(h), "invalid_argument")).details.field).toBe(field);
  });

  it("a password may hold any printable Unicode, emoji joiners included", async () => {
    const h = await createHarness();
    const password = "f\u00e4mily \u{1f468}\u200d\u{1f469}\u200d\u{1f467} p\u00e4ss";
    await h.gatehouse.register({ email: "emoji@example.com", password, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "emoji@example.com", role: "member" });
    expect((await h.gatehouse.login({ email: "emoji@example.com", password, orgId: h.orgId })).kind).toBe("phone_required");
  });

  it.each([
    ["upper case", "ADA@Example.COM"],
    ["surrounding spaces", "  ada@example.com \t"],
  ])("%s is the same account", async (_name, email) => {
    const h = await createHarness();
    await expectError(h.gatehouse.register({ email, password: PASSWORD, emailVerified: true }), "already_exists");
    expect((await h.gatehouse.login({ email, password: PASSWORD, orgId: h.orgId })).kind).toBe("phone_required");
  });

  it("composed and decomposed spellings (NFC/NFD) are one account", async () => {
    const h = await createHarness();
    const composed = "jos\u00e9@example.com";
    const decomposed = "jose\u0301@example.com";
    const { userId } = await h.gatehouse.register({ email: decomposed, password: PASSWORD, emailVerified: true });
    expect((await h.stores.users.findById(userId))?.email).toBe(composed);
    await expectError(h.gatehouse.register({ email: composed.toUpperCase(), password: PASSWORD, emailVerified: true }), "already_exists");
  });
});

describe("sessions: the refresh reuse interval", () => {
  it("a replay of the just-rotated token within 10 s gets the same successor tokens and the session stays active", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const first = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    h.clock.advance(9_999);
    const replay = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    if (first.kind !== "tokens" || replay.kind !== "tokens") throw new Error("expected tokens");
    expect(replay.tokens).toEqual(first.tokens);
    await expect(h.gatehouse.authenticate(first.tokens.accessToken)).resolves.toMatchObject({ userId: h.userId });
    expect((await h.gatehouse.refresh({ refreshToken: first.tokens.refreshToken })).kind).toBe("tokens");
  });

  it("50 parallel Refresh with one token: all get the same pair, and the session stays active", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const results = await Promise.all(Array.from({ length: 50 }, () => h.gatehouse.refresh({ refreshToken: tokens.refreshToken })));
    const pairs = new Set(results.map((r) => (r.kind === "tokens" ? `${r.tokens.accessToken}/${r.tokens.refreshToken}` : r.kind)));
    expect(pairs.size).toBe(1);
    const [outcome] = results;
    if (outcome?.kind !== "tokens") throw new Error("expected tokens");
    await expect(h.gatehouse.authenticate(outcome.tokens.accessToken)).resolves.toMatchObject({ userId: h.userId });
  });

  it("after the interval, reuse still revokes the session", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const rotated = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    if (rotated.kind !== "tokens") throw new Error("expected tokens");
    h.clock.advance(10_000);
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }), "unauthenticated");
    await expectError(h.gatehouse.authenticate(rotated.tokens.accessToken), "unauthenticated");
  });

  it("REFRESH_REUSE_INTERVAL 0 turns it off: an immediate replay revokes", async () => {
    const h = await createHarness({ refreshReuseIntervalMs: 0 });
    const tokens = await signInWithPhone(h);
    const rotated = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    if (rotated.kind !== "tokens") throw new Error("expected tokens");
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }), "unauthenticated");
    await expectError(h.gatehouse.authenticate(rotated.tokens.accessToken), "unauthenticated");
  });
});
