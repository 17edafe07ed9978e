import { describe, expect, it } from "vitest";
import {
  createGatehouse,
  decorateStores,
  DEFAULT_PLATFORM_SETTINGS,
  GatehouseError,
  SYSTEM_ACTOR,
  type Actor,
  type AuditEvent,
  type Gatehouse,
} from "../src/index.ts";
import { createHarness, PASSWORD, signInWithPhone, TEST_PASSWORD_PARAMS, type Harness } from "./harness.ts";

const PHONE = "+15551234567";
const MASK = "+*******4567";
const REQUEST = { clientIp: "203.0.113.9", userAgent: "Mozilla/5.0 (audit test)" };

/** Every event from `since` on (the harness's own setup is before it), oldest first. */
async function trail(h: Harness, since: number): Promise<AuditEvent[]> {
  return [...(await h.stores.audit.list({ from: since, limit: 1000 })).events].reverse();
}

/** Runs `act` (which may fail) and returns the events it recorded, oldest first. */
async function recorded(h: Harness, act: () => Promise<unknown>): Promise<AuditEvent[]> {
  h.clock.advance(1000);
  const since = h.clock.now();
  await act().catch((error: unknown) => {
    if (!(error instanceof GatehouseError)) throw error;
  });
  return trail(h, since);
}

const kinds = (events: readonly AuditEvent[]) => events.map((event) => event.kind);

describe("the events of a sign-in with MFA", () => {
  it("login → phone intent → phone → verify → refresh → logout, each event with its actor, org, user, device, request and payload", async () => {
    const h = await createHarness();
    const since = h.clock.now() + 1;
    h.clock.advance(1);
    const login = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop", request: REQUEST });
    if (login.kind !== "phone_required") throw new Error(login.kind);
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: PHONE, request: REQUEST });
    const otp = h.sms.lastOtpFor(challengeId)!;
    const tokens = await h.gatehouse.verifyMfa({ challengeId, otp, request: REQUEST });
    const refreshed = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken, request: REQUEST });
    if (refreshed.kind !== "tokens") throw new Error(refreshed.kind);
    await h.gatehouse.logout(await h.gatehouse.authenticate(refreshed.tokens.accessToken), REQUEST);

    const events = await trail(h, since);
    expect(kinds(events)).toEqual([
      "sign_in.succeeded",
      "mfa.required",
      "otp.sent",
      "mfa.verified",
      "phone.verified",
      "session.created",
      "device.trusted",
      "session.refreshed",
      "session.revoked",
    ]);
    const [device] = await h.stores.devices.listByUser(h.orgId, h.userId);
    for (const event of events) {
      expect(event).toMatchObject({
        actor: { kind: "user", userId: h.userId },
        orgId: h.orgId,
        userId: h.userId,
        clientIp: REQUEST.clientIp,
        userAgent: REQUEST.userAgent,
      });
      expect(event.deviceId).toBe(event.kind === "session.revoked" ? null : device!.id);
    }
    const sessionId = (events[5]!.payload as { sessionId: string }).sessionId;
    expect(events.map((event) => event.payload)).toEqual([
      { mfaRequired: true },
      { phoneMask: null },
      { challengeId, phoneMask: MASK },
      { challengeId, factor: "sms" },
      { phoneMask: MASK },
      { sessionId },
      { trustedUntil: new Date(h.clock.now() + 30 * 24 * 60 * 60 * 1000).toISOString() },
      { sessionId },
      { reason: "logout", sessionId, count: 1 },
    ]);
    // Every text recorded but the ids (deterministic here, their hex can hold any six digits).
    const texts = JSON.stringify(events, (key, value: unknown) => (key === "id" || key.endsWith("Id") ? undefined : value));
    for (const secret of [otp, PASSWORD, PHONE, PHONE.slice(1), tokens.accessToken, tokens.refreshToken, refreshed.tokens.refreshToken]) {
      expect(texts).not.toContain(secret);
    }
  });

  it("a known phone: mfa.required with its mask, then otp.sent; a trusted device: sign-in and a session only", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop", PHONE);
    expect(kinds(await recorded(h, () => h.login("tablet")))).toEqual(["sign_in.succeeded", "mfa.required", "otp.sent"]);
    const events = await recorded(h, () => h.login("laptop"));
    expect(kinds(events)).toEqual(["sign_in.succeeded", "session.created"]);
    expect(events[0]!.payload).toEqual({ mfaRequired: false });
  });

  it("a sender that sends nothing by design (no SMS provider): the challenge stands, and no otp.sent is recorded", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop", PHONE);
    const unsent = createGatehouse({
      stores: h.stores,
      clock: h.clock,
      random: h.random,
      sms: { sendOtp: async () => undefined, sendsNothing: true },
      email: h.email,
      config: { password: TEST_PASSWORD_PARAMS },
    });
    const events = await recorded(h, async () => {
      const outcome = await unsent.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "tablet" });
      expect(outcome.kind).toBe("mfa_required");
    });
    expect(kinds(events)).toEqual(["sign_in.succeeded", "mfa.required"]);
  });

  it("a provider that refuses: otp.send_failed with the mask, and no otp.sent", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop", PHONE);
    h.sms.failing = true;
    const events = await recorded(h, () => h.login("tablet"));
    expect(kinds(events)).toEqual(["sign_in.succeeded", "mfa.required", "otp.send_failed"]);
    expect(events[2]!.payload).toEqual({ phoneMask: MASK });
  });
});

describe("refused sign-ins and verifications", () => {
  it.each<[string, (h: Harness) => Promise<unknown>, (h: Harness, bob: string) => Partial<AuditEvent>]>([
    [
      "an unknown email",
      (h) => h.gatehouse.login({ email: "nobody@example.com", password: PASSWORD, orgId: h.orgId, request: REQUEST }),
      (h) => ({ actor: { kind: "anonymous" }, orgId: h.orgId, userId: null, clientIp: REQUEST.clientIp, payload: { reason: "unknown_email" } }),
    ],
    [
      "a wrong password",
      (h) => h.login("laptop", "ada@example.com", "not the password"),
      (h) => ({ actor: { kind: "anonymous" }, orgId: h.orgId, userId: h.userId, payload: { reason: "wrong_password" } }),
    ],
    [
      "an org the user is not in",
      (h) => h.gatehouse.login({ email: "bob@example.com", password: PASSWORD, orgId: h.orgId }),
      (h, bob) => ({ actor: { kind: "user", userId: bob }, orgId: h.orgId, userId: bob, payload: { reason: "not_org_member" } }),
    ],
    [
      "an org that does not exist",
      (h) => h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: "no-such-org" }),
      (h) => ({ actor: { kind: "user", userId: h.userId }, orgId: null, userId: h.userId, payload: { reason: "unknown_org" } }),
    ],
  ])("%s: one sign_in.failed with the reason", async (_case, act, expected) => {
    const h = await createHarness();
    const { userId: bob } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
    const events = await recorded(h, () => act(h));
    expect(kinds(events)).toEqual(["sign_in.failed"]);
    expect(events[0]).toMatchObject({ deviceId: null, ...expected(h, bob) });
  });

  it("wrong codes: mfa.failed each time, mfa.locked_out on the last attempt; an unknown challenge and an expired one too", async () => {
    const h = await createHarness();
    const login = await h.login();
    if (login.kind !== "phone_required") throw new Error(login.kind);
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: PHONE });
    const wrong = h.sms.lastOtpFor(challengeId) === "000000" ? "111111" : "000000";
    const events: AuditEvent[] = [];
    for (let i = 0; i < 5; i++) events.push(...(await recorded(h, () => h.gatehouse.verifyMfa({ challengeId, otp: wrong }))));
    expect(kinds(events)).toEqual(["mfa.failed", "mfa.failed", "mfa.failed", "mfa.failed", "mfa.locked_out"]);
    expect(events[0]).toMatchObject({ actor: { kind: "user", userId: h.userId }, orgId: h.orgId, payload: { challengeId, reason: "wrong_otp" } });
    expect(events[4]!.payload).toEqual({ challengeId, attempts: 5 });

    const unknown = await recorded(h, () => h.gatehouse.verifyMfa({ challengeId, otp: wrong }));
    expect(unknown).toEqual([
      expect.objectContaining({ actor: { kind: "anonymous" }, orgId: null, userId: null, payload: { challengeId, reason: "unknown_challenge" } }),
    ]);

    const again = await h.login("tablet");
    if (again.kind !== "phone_required") throw new Error(again.kind);
    const pending = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: again.intent.intentId, phone: PHONE });
    h.clock.advance(11 * 60_000);
    const expired = await recorded(h, () => h.gatehouse.verifyMfa({ challengeId: pending.challengeId, otp: wrong }));
    expect(expired).toEqual([expect.objectContaining({ userId: h.userId, payload: { challengeId: pending.challengeId, reason: "challenge_expired" } })]);
  });

  it.each<[string, Partial<Parameters<typeof createHarness>[0]>, (h: Harness) => Promise<unknown>, string]>([
    [
      "the failure budget",
      { otpFailuresPerUser: { limit: 1, windowMs: 60_000 } },
      async (h) => {
        const login = await h.login();
        if (login.kind !== "phone_required") throw new Error(login.kind);
        const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: PHONE });
        await h.gatehouse.verifyMfa({ challengeId, otp: "000000" }).catch(() => {});
        await h.gatehouse.verifyMfa({ challengeId, otp: "000000" }).catch(() => {});
      },
      "otp_failures_per_user",
    ],
    [
      "the sends per phone",
      { otpSendsPerPhone: [{ limit: 1, windowMs: 60_000 }] },
      async (h) => {
        for (const device of ["laptop", "tablet"]) {
          const login = await h.login(device);
          if (login.kind !== "phone_required") throw new Error(login.kind);
          await h.gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: PHONE });
        }
      },
      "otp_sends_per_phone",
    ],
    [
      "the resend interval",
      {},
      async (h) => {
        const login = await h.login();
        if (login.kind !== "phone_required") throw new Error(login.kind);
        const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: PHONE });
        await h.gatehouse.resendMfa({ challengeId });
      },
      "otp_resend_interval",
    ],
  ])("%s: rate_limited names the limit and the wait", async (_case, config, act, limit) => {
    const h = await createHarness(config);
    const events = await recorded(h, () => act(h));
    const refused = events.filter((event) => event.kind === "rate_limited");
    expect(refused).toEqual([
      expect.objectContaining({ actor: { kind: "user", userId: h.userId }, orgId: h.orgId, payload: { limit, retryAfterSeconds: expect.any(Number) } }),
    ]);
  });

  it("a rotated-away refresh token comes back: session.refresh_reuse_detected names the session's user, org and device", async () => {
    const h = await createHarness({ refreshReuseIntervalMs: 0 });
    const tokens = await signInWithPhone(h, "laptop", PHONE);
    await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
    const events = await recorded(h, () => h.gatehouse.refresh({ refreshToken: tokens.refreshToken, request: REQUEST }));
    const [device] = await h.stores.devices.listByUser(h.orgId, h.userId);
    expect(events).toEqual([
      expect.objectContaining({
        kind: "session.refresh_reuse_detected",
        actor: { kind: "anonymous" },
        orgId: h.orgId,
        userId: h.userId,
        deviceId: device!.id,
        clientIp: REQUEST.clientIp,
        payload: { sessionId: expect.any(String) },
      }),
    ]);
  });
});

describe("administration", () => {
  async function withAdmin() {
    const h = await createHarness();
    const { userId: adminId } = await h.gatehouse.register({ email: "root@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "root@example.com", role: "admin" });
    const admin: Actor = { kind: "user", userId: adminId, orgId: h.orgId, request: REQUEST };
    return { h, adminId, admin };
  }

  it.each<[string, (g: Gatehouse, admin: Actor, h: Harness) => Promise<unknown>, string[], unknown]>([
    [
      "invites an existing account (its owner's consent makes the membership)",
      (g, admin, h) => g.admin.addMember(admin, { orgId: h.orgId, email: "bob@example.com", role: "admin" }),
      ["invitation.created"],
      { email: "bob@example.com", role: "admin" },
    ],
    [
      "changes the org's MFA settings",
      (g, admin, h) => g.admin.updateOrgMfaSettings(admin, { orgId: h.orgId, patch: { trustTtlDays: 7 } }),
      ["org_mfa_settings.changed"],
      { settings: { requireMfaNewDevice: true, requireMfaUntrustedDevice: true, trustDeviceAfterMfa: true, trustTtlDays: 7 } },
    ],
    [
      "replaces the browser policy (twice: the version counts)",
      async (g, admin, h) => {
        const policy = {
          accessControl: { allowedDomains: ["example.com"], blockedDomains: [], defaultAction: "deny", wildcardSupported: true },
          actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
        } as const;
        await g.admin.updateOrgBrowserPolicy(admin, { orgId: h.orgId, policy });
        await g.admin.updateOrgBrowserPolicy(admin, { orgId: h.orgId, policy });
      },
      ["browser_policy.changed", "browser_policy.changed"],
      { version: 2 },
    ],
  ])("%s: recorded with the admin as actor and the request", async (_case, act, expectedKinds, lastPayload) => {
    const { h, adminId, admin } = await withAdmin();
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
    const events = await recorded(h, () => act(h.gatehouse, admin, h));
    expect(kinds(events)).toEqual(expectedKinds);
    expect(events.at(-1)).toMatchObject({ actor: { kind: "user", userId: adminId }, orgId: h.orgId, clientIp: REQUEST.clientIp, payload: lastPayload });
  });

  it("platform settings: recorded with the operator as actor and no org", async () => {
    const h = await createHarness();
    const events = await recorded(h, () => h.gatehouse.admin.updatePlatformSettings(SYSTEM_ACTOR, { mfaAlways: true }));
    expect(events).toEqual([
      expect.objectContaining({
        kind: "platform_settings.changed",
        actor: { kind: "system" },
        orgId: null,
        clientIp: null,
        payload: { settings: { ...DEFAULT_PLATFORM_SETTINGS, mfaAlways: true } },
      }),
    ]);
  });

  it("revoking a device's trust, the member's sessions, then removing the member: each about the member", async () => {
    const { h, admin } = await withAdmin();
    await signInWithPhone(h, "laptop", PHONE);
    await signInWithPhone(h, "laptop", PHONE);
    const [device] = await h.stores.devices.listByUser(h.orgId, h.userId);
    const trust = await recorded(h, () => h.gatehouse.admin.revokeDeviceTrust(admin, { orgId: h.orgId, deviceId: device!.id }));
    expect(trust).toEqual([
      expect.objectContaining({ kind: "device.trust_revoked", userId: h.userId, deviceId: device!.id, payload: {} }),
      expect.objectContaining({
        kind: "session.revoked",
        userId: h.userId,
        deviceId: device!.id,
        payload: { reason: "device_trust_revoked", sessionId: null, count: 2 },
      }),
    ]);
    await signInWithPhone(h, "laptop", PHONE);
    const sessions = await recorded(h, () => h.gatehouse.admin.revokeUserSessions(admin, { orgId: h.orgId, userId: h.userId }));
    expect(sessions).toEqual([
      expect.objectContaining({ kind: "session.revoked", userId: h.userId, payload: { reason: "admin", sessionId: null, count: 1 } }),
      expect.objectContaining({ kind: "device.trust_revoked", userId: h.userId, deviceId: null, payload: {} }),
    ]);
    await signInWithPhone(h, "laptop", PHONE);
    const removed = await recorded(h, () => h.gatehouse.admin.removeMember(admin, { orgId: h.orgId, userId: h.userId }));
    expect(kinds(removed)).toEqual(["member.removed", "session.revoked", "device.trust_revoked"]);
    expect(removed[1]!.payload).toEqual({ reason: "member_removed", sessionId: null, count: 1 });
  });
});

describe("no change without its event, no event without its change", () => {
  it("VerifyMFA whose last write fails records nothing: its events roll back with its changes", async () => {
    const h = await createHarness();
    const failing = decorateStores(h.stores, (ports) => ({
      devices: { ...ports.devices, markSessionIssued: () => Promise.reject(new Error("disk I/O error")) },
    }));
    const login = await h.login();
    if (login.kind !== "phone_required") throw new Error(login.kind);
    const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: PHONE });
    const broken = createGatehouse({
      stores: failing,
      clock: h.clock,
      random: h.random,
      sms: h.sms,
      email: h.email,
      config: { password: { memoryKiB: 1024, passes: 1, parallelism: 1 } },
    });
    h.clock.advance(1000);
    const since = h.clock.now();
    await expect(broken.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! })).rejects.toThrow("disk I/O error");
    expect(await trail(h, since)).toEqual([]);
    expect(await h.stores.challenges.findById(challengeId)).not.toBeNull();
  });
});
