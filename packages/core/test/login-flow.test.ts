import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { hashOtp } from "../src/factors/sms/otp.ts";
import { hashToken } from "../src/bearer-tokens.ts";
import { createHarness, PASSWORD, signInWithPhone } from "./harness.ts";

const DAY = 86_400_000;

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

describe("Login", () => {
  it("new device, no phone: persists an intent and returns phone_required (state: Intent none → pending)", async () => {
    const h = await createHarness();
    const outcome = await h.login();
    expect(outcome.kind).toBe("phone_required");
    expect(h.sms.sent).toHaveLength(0);
  });

  it("new device with a phone: persists a challenge, sends the OTP, returns mfa_required without it", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    const outcome = await h.login("phone");
    if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
    expect(outcome.challenge.phoneMask).toBe("+*******4567");
    const sent = h.sms.sent.at(-1)!;
    expect(sent.challengeId).toBe(outcome.challenge.challengeId);
    expect(sent.phone).toBe("+15551234567");
    expect(JSON.stringify(outcome)).not.toContain(sent.otp);
    const stored = await h.stores.challenges.findById(outcome.challenge.challengeId);
    expect(stored?.codeHash).toBe(hashOtp(sent.otp, stored!.id, undefined));
    expect(JSON.stringify(stored)).not.toContain(`"${sent.otp}"`);
  });

  it("known trusted device: tokens straight away, device trust unchanged", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    const before = (await h.stores.devices.listByUser(h.orgId, h.userId))[0]!;
    const outcome = await h.login("laptop");
    expect(outcome.kind).toBe("tokens");
    const after = (await h.stores.devices.listByUser(h.orgId, h.userId))[0]!;
    expect(after.trustedUntil).toBe(before.trustedUntil);
  });

  it("uses the literal password-login fingerprint when none is given", async () => {
    const h = await createHarness();
    await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId });
    const devices = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(devices.map((d) => d.fingerprintHash)).toEqual([h.fingerprintHash("password-login")]);
  });

  it("platform mfa_always demands MFA even on a trusted device", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    await h.gatehouse.admin.updatePlatformSettings({ kind: "system" }, { mfaAlways: true });
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });

  it("require_mfa_untrusted_device: MFA again once the trust has expired", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: true, trustTtlDays: 7 } });
    await signInWithPhone(h, "laptop");
    expect((await h.login("laptop")).kind).toBe("tokens");
    h.clock.advance(7 * DAY);
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });

  it("a non-member gets PermissionDenied", async () => {
    const h = await createHarness();
    await h.gatehouse.register({ email: "eve@example.com", password: PASSWORD, emailVerified: true });
    await expectError(h.login("laptop", "eve@example.com"), "not_org_member");
  });

  it("unknown email and wrong password give the same error and message", async () => {
    const h = await createHarness();
    const unknown = await expectError(h.login("laptop", "nobody@example.com"), "invalid_credentials");
    const wrong = await expectError(h.login("laptop", "ada@example.com", "wrong password"), "invalid_credentials");
    expect(unknown.message).toBe(wrong.message);
  });

  it.each([
    [{ email: "" }, "email"],
    [{ email: "not-an-email" }, "email"],
    [{ password: "" }, "password"],
    [{ orgId: "" }, "org_id"],
    [{ orgId: "a b" }, "org_id"],
    [{ deviceFingerprint: "x".repeat(300) }, "device_fingerprint"],
  ])("malformed input %j → invalid_argument naming %s", async (override, field) => {
    const h = await createHarness();
    const error = await expectError(
      h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "x", ...override }),
      "invalid_argument",
    );
    expect(error.details.field).toBe(field);
  });
});

describe("SubmitPhoneAndRequestMFA", () => {
  it("consumes the intent and creates a challenge for the submitted phone (Intent pending → consumed)", async () => {
    const h = await createHarness();
    const outcome = await h.login();
    if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
    const result = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" });
    expect(result.phoneMask).toBe("+*******1111");
    expect(h.sms.sent.at(-1)).toMatchObject({ phone: "+15550001111", challengeId: result.challengeId });
    expect(JSON.stringify(result)).not.toContain(h.sms.sent.at(-1)!.otp);
    await expectError(
      h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" }),
      "invalid_mfa_intent",
      "invalid or expired MFA intent",
    );
  });

  it("an expired intent is refused and nothing is sent", async () => {
    const h = await createHarness();
    const outcome = await h.login();
    if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
    h.clock.advance(10 * 60_000);
    await expectError(h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" }), "invalid_mfa_intent");
    expect(h.sms.sent).toHaveLength(0);
  });

  it("an unknown intent is refused with the intent message", async () => {
    const h = await createHarness();
    await expectError(
      h.gatehouse.submitPhoneAndRequestMfa({ intentId: "00000000-0000-4000-8000-000000000000", phone: "+15550001111" }),
      "invalid_mfa_intent",
      "invalid or expired MFA intent",
    );
  });

  it.each([
    [{ intentId: "" }, "intent_id"],
    [{ phone: "" }, "phone"],
    [{ phone: "12345" }, "phone"],
    [{ phone: "+1 555 000 1111" }, "phone"],
  ])("malformed %j → invalid_argument naming %s", async (override, field) => {
    const h = await createHarness();
    const error = await expectError(h.gatehouse.submitPhoneAndRequestMfa({ intentId: "abc", phone: "+15550001111", ...override }), "invalid_argument");
    expect(error.details.field).toBe(field);
  });

  it("defensively refuses an intent whose user already has a verified phone", async () => {
    const h = await createHarness();
    await signInWithPhone(h);
    await h.stores.intents.create({
      id: hashToken("forged-intent"),
      userId: h.userId,
      orgId: h.orgId,
      deviceId: "d",
      expiresAt: h.clock.now() + 60_000,
      createdAt: h.clock.now(),
    });
    await expectError(h.gatehouse.submitPhoneAndRequestMfa({ intentId: "forged-intent", phone: "+15559999999" }), "phone_already_verified");
  });

  it("when the provider fails: Unavailable, no challenge left behind, and the intent can be retried", async () => {
    const h = await createHarness();
    const outcome = await h.login();
    if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
    h.sms.failing = true;
    const error = await expectError(h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" }), "sms_unavailable");
    expect(error.message).not.toMatch(/[0-9]{6}/);
    expect(await h.stores.challenges.deleteByUser(h.userId)).toBe(0);
    h.sms.failing = false;
    const retry = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" });
    expect(retry.challengeId).toBeTruthy();
  });
});

describe("VerifyMFA", () => {
  async function challenged() {
    const h = await createHarness();
    const outcome = await h.login();
    if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" });
    const otp = h.sms.lastOtpFor(challengeId)!;
    const wrongOtp = otp === "000000" ? "000001" : "000000";
    return { h, challengeId, otp, wrongOtp };
  }

  it("success: issues tokens, deletes the challenge, locks the phone, trusts the device for TrustTTLDays", async () => {
    const { h, challengeId, otp } = await challenged();
    const tokens = await h.gatehouse.verifyMfa({ challengeId, otp });
    expect(tokens.accessToken).toMatch(/^gh_at_[\w-]{43}$/);
    expect(tokens.refreshToken).toMatch(/^gh_rt_[\w-]{43}$/);
    expect(tokens.expiresAt).toBe(h.clock.now() + 15 * 60_000);
    expect(tokens).toMatchObject({ userId: h.userId, orgId: h.orgId });
    expect(await h.stores.challenges.findById(challengeId)).toBeNull();
    expect(await h.stores.users.findById(h.userId)).toMatchObject({ phone: "+15550001111", phoneVerified: true });
    const [device] = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(device).toMatchObject({ trusted: true, trustedUntil: h.clock.now() + 30 * DAY });
    expect(await h.gatehouse.authenticate(tokens.accessToken)).toMatchObject({ userId: h.userId, orgId: h.orgId });
  });

  it("does not trust the device when RegisterTrustAfterMFA is false", async () => {
    const { h, challengeId, otp } = await challenged();
    await h.gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId: h.orgId, patch: { trustDeviceAfterMfa: false } });
    await h.gatehouse.verifyMfa({ challengeId, otp });
    const [device] = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(device).toMatchObject({ trusted: false, trustedUntil: null });
  });

  it("trust is capped by the platform's max_trust_ttl_days", async () => {
    const { h, challengeId, otp } = await challenged();
    await h.gatehouse.admin.updatePlatformSettings({ kind: "system" }, { maxTrustTtlDays: 3 });
    await h.gatehouse.verifyMfa({ challengeId, otp });
    const [device] = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(device?.trustedUntil).toBe(h.clock.now() + 3 * DAY);
  });

  it("the phone stays locked: a later MFA never changes it", async () => {
    const { h, challengeId, otp } = await challenged();
    await h.gatehouse.verifyMfa({ challengeId, otp });
    expect(await h.stores.users.setVerifiedPhone(h.userId, "+15559999999")).toBe(false);
    const second = await h.login("tablet");
    expect(second.kind).toBe("mfa_required");
    expect(h.sms.sent.at(-1)!.phone).toBe("+15550001111");
  });

  it("a used challenge cannot be used again", async () => {
    const { h, challengeId, otp } = await challenged();
    await h.gatehouse.verifyMfa({ challengeId, otp });
    await expectError(h.gatehouse.verifyMfa({ challengeId, otp }), "invalid_mfa_challenge", "invalid or expired MFA challenge");
  });

  it("expired: FailedPrecondition and the challenge is left as it was", async () => {
    const { h, challengeId, otp } = await challenged();
    h.clock.advance(10 * 60_000);
    await expectError(h.gatehouse.verifyMfa({ challengeId, otp }), "challenge_expired", "MFA challenge expired");
    expect(await h.stores.challenges.findById(challengeId)).not.toBeNull();
  });

  it("a wrong OTP and an unknown challenge give the same message", async () => {
    const { h, challengeId, wrongOtp } = await challenged();
    const wrong = await expectError(h.gatehouse.verifyMfa({ challengeId, otp: wrongOtp }), "invalid_otp");
    const unknown = await expectError(h.gatehouse.verifyMfa({ challengeId: "no-such-challenge", otp: wrongOtp }), "invalid_mfa_challenge");
    expect(wrong.message).toBe("invalid or expired MFA challenge");
    expect(unknown.message).toBe(wrong.message);
    expect(await h.stores.challenges.findById(challengeId)).not.toBeNull();
  });

  it("after 5 wrong codes the challenge is gone, even for the right code", async () => {
    const { h, challengeId, otp, wrongOtp } = await challenged();
    for (let i = 0; i < 5; i++) await expectError(h.gatehouse.verifyMfa({ challengeId, otp: wrongOtp }), "invalid_otp");
    expect(await h.stores.challenges.findById(challengeId)).toBeNull();
    await expectError(h.gatehouse.verifyMfa({ challengeId, otp }), "invalid_mfa_challenge", "invalid or expired MFA challenge");
  });

  it("only the wrong code that used the last attempt names the challenge as at fault", async () => {
    const { h, challengeId, wrongOtp } = await challenged();
    const fields = [];
    for (let i = 0; i < 5; i++) {
      const error = await h.gatehouse.verifyMfa({ challengeId, otp: wrongOtp }).then(
        () => null,
        (e: unknown) => e as GatehouseError,
      );
      fields.push([error?.kind, error?.details.field ?? null]);
    }
    expect(fields).toEqual([...Array<[string, null]>(4).fill(["invalid_otp", null]), ["invalid_otp", "challenge_id"]]);
  });

  it("the per-user failure budget (10 per 15 min) holds across challenges, then recovers", async () => {
    const { h, wrongOtp } = await challenged();
    const newChallenge = async () => {
      const outcome = await h.login(`device-${Math.random()}`);
      if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
      return (await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" })).challengeId;
    };
    let challengeId = await newChallenge();
    for (let i = 0; i < 10; i++) {
      if (i % 4 === 3) challengeId = await newChallenge();
      await expectError(h.gatehouse.verifyMfa({ challengeId, otp: wrongOtp }), "invalid_otp");
    }
    challengeId = await newChallenge();
    const limited = await expectError(h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! }), "rate_limited");
    expect(limited.details.retryAfterSeconds).toBeGreaterThan(0);
    h.clock.advance(15 * 60_000);
    challengeId = await newChallenge();
    await expect(h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! })).resolves.toBeTruthy();
  });

  it("a right code refunds its budget unit: successes never lock a user out", async () => {
    const plenty = [{ limit: 100, windowMs: 86_400_000 }];
    const h = await createHarness({ otpSendsPerPhone: plenty, otpSendsPerUser: plenty });
    for (let i = 0; i < 12; i++) await signInWithPhone(h, `device-${i}`);
    expect(await h.stores.devices.listByUser(h.orgId, h.userId)).toHaveLength(12);
  });

  it.each([
    [{ challengeId: "" }, "challenge_id"],
    [{ otp: "" }, "otp"],
    [{ otp: "12345" }, "otp"],
    [{ otp: "12345a" }, "otp"],
  ])("malformed %j → invalid_argument naming %s", async (override, field) => {
    const { h, challengeId, otp } = await challenged();
    const error = await expectError(h.gatehouse.verifyMfa({ challengeId, otp, ...override }), "invalid_argument");
    expect(error.details.field).toBe(field);
  });

  it("50 concurrent verifications with the right code yield exactly one session", async () => {
    const { h, challengeId, otp } = await challenged();
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => h.gatehouse.verifyMfa({ challengeId, otp })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("50 concurrent wrong codes evaluate at most 5 guesses", async () => {
    const { h, challengeId, wrongOtp } = await challenged();
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => h.gatehouse.verifyMfa({ challengeId, otp: wrongOtp })));
    const kinds = results.map((r) => (r.status === "rejected" ? (r.reason as GatehouseError).kind : "ok"));
    expect(kinds.filter((k) => k === "invalid_otp")).toHaveLength(5);
    expect(kinds.filter((k) => k === "invalid_mfa_challenge")).toHaveLength(45);
  });
});

describe("OTP send limits", () => {
  it("5 sends per phone in 15 minutes, then ResourceExhausted until the window passes", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    for (let i = 0; i < 4; i++) expect((await h.login(`d${i}`)).kind).toBe("mfa_required");
    const error = await expectError(h.login("d5"), "rate_limited");
    expect(error.message).toMatch(/retry in \d+ s/);
    h.clock.advance(15 * 60_000);
    expect((await h.login("d6")).kind).toBe("mfa_required");
  });

  it("20 sends per user per day", async () => {
    const h = await createHarness({ otpSendsPerPhone: [{ limit: 1000, windowMs: 60_000 }] });
    await signInWithPhone(h, "laptop");
    for (let i = 0; i < 19; i++) expect((await h.login(`d${i}`)).kind).toBe("mfa_required");
    await expectError(h.login("d-last"), "rate_limited");
  });

  it("the provider failing on Login: Unavailable and no challenge left", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    h.sms.failing = true;
    await expectError(h.login("tablet"), "sms_unavailable");
    expect(await h.stores.challenges.deleteByUser(h.userId)).toBe(0);
  });
});

describe("Refresh", () => {
  it("rotates both tokens; the old access token stops working", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const outcome = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    if (outcome.kind !== "tokens") throw new Error("expected tokens");
    expect(outcome.tokens.refreshToken).not.toBe(tokens.refreshToken);
    await expectError(h.gatehouse.authenticate(tokens.accessToken), "unauthenticated");
    await expect(h.gatehouse.authenticate(outcome.tokens.accessToken)).resolves.toMatchObject({ userId: h.userId });
  });

  it("reusing a rotated refresh token after the reuse interval revokes the whole session (theft detection)", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const rotated = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    if (rotated.kind !== "tokens") throw new Error("expected tokens");
    h.clock.advance(10_000);
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }), "unauthenticated");
    await expectError(h.gatehouse.authenticate(rotated.tokens.accessToken), "unauthenticated");
    await expectError(h.gatehouse.refresh({ refreshToken: rotated.tokens.refreshToken }), "unauthenticated");
  });

  it("with another device's fingerprint: refused like a reused token, the session revoked, no device stored", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken, deviceFingerprint: "stolen-laptop" }), "unauthenticated");
    await expectError(h.gatehouse.authenticate(tokens.accessToken), "unauthenticated");
    expect((await h.stores.devices.listByUser(h.orgId, h.userId)).map((d) => d.fingerprintHash)).toEqual([h.fingerprintHash("laptop")]);
  });

  it("for a device whose trust was revoked: session revoked, mfa_required, old access token refused (Session active → revoked)", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    const [laptop] = await h.stores.devices.listByUser(h.orgId, h.userId);
    await h.stores.devices.revokeTrust(laptop!.id, h.clock.now());
    const outcome = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    expect(outcome.kind).toBe("mfa_required");
    await expectError(h.gatehouse.authenticate(tokens.accessToken), "unauthenticated");
    if (outcome.kind !== "mfa_required") return;
    const otp = h.sms.lastOtpFor(outcome.challenge.challengeId)!;
    await expect(h.gatehouse.verifyMfa({ challengeId: outcome.challenge.challengeId, otp })).resolves.toMatchObject({ userId: h.userId });
  });

  it("with a fingerprint that needs MFA and no phone on file: phone_required", async () => {
    const h = await createHarness({});
    await h.gatehouse.admin.updateOrgMfaSettings(
      { kind: "system" },
      { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } },
    );
    const first = await h.login("laptop");
    if (first.kind !== "tokens") throw new Error("expected tokens");
    await h.gatehouse.admin.updatePlatformSettings({ kind: "system" }, { mfaAlways: true });
    const outcome = await h.gatehouse.refresh({ refreshToken: first.tokens.refreshToken, deviceFingerprint: "laptop" });
    expect(outcome.kind).toBe("phone_required");
    await expectError(h.gatehouse.authenticate(first.tokens.accessToken), "unauthenticated");
  });

  it("with a trusted fingerprint: tokens", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    expect((await h.gatehouse.refresh({ refreshToken: tokens.refreshToken, deviceFingerprint: "laptop" })).kind).toBe("tokens");
  });

  it("expires after 30 days", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    h.clock.advance(30 * DAY);
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }), "unauthenticated");
  });

  it("a removed member loses the session on refresh", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    await h.stores.orgs.removeMembership(h.orgId, h.userId);
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }), "not_org_member");
  });

  it.each(["", "gh_rt_unknown", "not-a-token", `gh_rt_${"x".repeat(100)}`])("refuses %j", async (refreshToken) => {
    const h = await createHarness();
    await expect(h.gatehouse.refresh({ refreshToken })).rejects.toBeInstanceOf(GatehouseError);
  });

  it("20 concurrent refreshes with one token and the reuse interval off: exactly one new pair, then the session is revoked as reuse", async () => {
    const h = await createHarness({ refreshReuseIntervalMs: 0 });
    const tokens = await signInWithPhone(h);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.gatehouse.refresh({ refreshToken: tokens.refreshToken })));
    const winners = results.flatMap((r) => (r.status === "fulfilled" && r.value.kind === "tokens" ? [r.value.tokens] : []));
    expect(winners).toHaveLength(1);
    await expectError(h.gatehouse.authenticate(winners[0]!.accessToken), "unauthenticated");
  });
});

describe("Access tokens and Logout", () => {
  it("access tokens expire after 15 minutes", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    h.clock.advance(15 * 60_000);
    await expectError(h.gatehouse.authenticate(tokens.accessToken), "unauthenticated");
  });

  it("logout revokes the session and deletes pending challenges and intents", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    const pending = await h.login("tablet");
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    await h.gatehouse.logout(principal);
    await expectError(h.gatehouse.authenticate(tokens.accessToken), "unauthenticated");
    await expectError(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }), "unauthenticated");
    if (pending.kind !== "mfa_required") throw new Error("expected mfa_required");
    expect(await h.stores.challenges.findById(pending.challenge.challengeId)).toBeNull();
  });

  it.each(["", "Bearer x", "gh_rt_abc", `gh_at_${"a".repeat(43)}`])("authenticate refuses %j", async (token) => {
    const h = await createHarness();
    await expectError(h.gatehouse.authenticate(token), "unauthenticated");
  });
});

describe("Register", () => {
  it("refuses a duplicate email, whatever its case", async () => {
    const h = await createHarness();
    await expectError(h.gatehouse.register({ email: "ADA@example.com", password: PASSWORD, emailVerified: true }), "already_exists");
  });

  it("stores only an Argon2id hash with the configured parameters", async () => {
    const h = await createHarness();
    const user = await h.stores.users.findById(h.userId);
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(JSON.stringify(user)).not.toContain(PASSWORD);
  });

  it.each([
    [{ email: "bad" }, "email"],
    [{ password: "short" }, "password"],
    [{ password: "x".repeat(1025) }, "password"],
    [{ displayName: "x".repeat(101) }, "display_name"],
  ])("malformed %j → invalid_argument naming %s", async (override, field) => {
    const h = await createHarness();
    const error = await expectError(h.gatehouse.register({ email: "new@example.com", password: PASSWORD, ...override }), "invalid_argument");
    expect(error.details.field).toBe(field);
  });
});

describe("OTP hash key", () => {
  it("stores an HMAC keyed by OTP_HASH_KEY and still verifies", async () => {
    const h = await createHarness({ otpHashKey: "operator-secret" });
    const outcome = await h.login();
    if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15550001111" });
    const otp = h.sms.lastOtpFor(challengeId)!;
    expect((await h.stores.challenges.findById(challengeId))?.codeHash).toBe(hashOtp(otp, challengeId, "operator-secret"));
    await expect(h.gatehouse.verifyMfa({ challengeId, otp })).resolves.toBeTruthy();
  });
});
