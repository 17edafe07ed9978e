import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../src/records/audit-events.ts";
import { GatehouseError } from "../src/errors.ts";
import type { Actor } from "../src/authorization/actor.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const SYSTEM: Actor = { kind: "system" };

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

async function events(h: Harness, kind: AuditEvent["kind"]): Promise<AuditEvent[]> {
  return (await h.stores.audit.list({ limit: 1000, kinds: [kind] })).events;
}

/** An org admin of the harness's org who is not a platform admin. */
async function orgAdmin(h: Harness): Promise<Actor> {
  const { userId } = await h.gatehouse.register({ email: "root@example.com", password: PASSWORD, emailVerified: true });
  await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "root@example.com", role: "admin" });
  return { kind: "user", userId, orgId: h.orgId };
}

describe("RevokeUserSessions ends the member's device trust in the org", () => {
  it("the attacker holding the password and a trusted device needs MFA again after it", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    expect((await h.login("laptop")).kind).toBe("tokens");
    await h.gatehouse.admin.revokeUserSessions(await orgAdmin(h), { orgId: h.orgId, userId: h.userId });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });

  it("also where the org asks MFA of new devices only: the evicted devices are new again", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    await signInWithPhone(h, "laptop");
    expect((await h.login("laptop")).kind).toBe("tokens");
    await h.gatehouse.admin.revokeUserSessions(SYSTEM, { orgId: h.orgId, userId: h.userId });
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });

  it("leaves the user's trust in other orgs alone", async () => {
    const h = await createHarness();
    const { orgId: other } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: other, email: "ada@example.com", role: "member" });
    await signInWithPhone(h, "laptop");
    const second = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: other, deviceFingerprint: "laptop" });
    if (second.kind !== "mfa_required") throw new Error(second.kind);
    await h.gatehouse.verifyMfa({ challengeId: second.challenge.challengeId, otp: h.sms.lastOtpFor(second.challenge.challengeId)! });
    await h.gatehouse.admin.revokeUserSessions(SYSTEM, { orgId: h.orgId, userId: h.userId });
    expect((await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: other, deviceFingerprint: "laptop" })).kind).toBe("tokens");
  });
});

describe("RemoveMember ends sessions and device trust in the org", () => {
  it("removed and added back, the member signs in with MFA", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    await h.gatehouse.admin.removeMember(SYSTEM, { orgId: h.orgId, userId: h.userId });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "ada@example.com", role: "member" });
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }))).toBe("unauthenticated");
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });
});

describe("RevokeDeviceTrust ends that device's sessions", () => {
  it("the device's access and refresh tokens stop working; another device's session goes on", async () => {
    const h = await createHarness();
    const laptop = await signInWithPhone(h, "laptop");
    const phone = await signInWithPhone(h, "phone");
    const device = (await h.stores.devices.listByUser(h.orgId, h.userId)).find((d) => d.fingerprintHash === h.fingerprintHash("laptop"))!;
    await h.gatehouse.admin.revokeDeviceTrust(SYSTEM, { orgId: h.orgId, deviceId: device.id });
    expect(await kindOf(h.gatehouse.authenticate(laptop.accessToken))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: laptop.refreshToken }))).toBe("unauthenticated");
    await expect(h.gatehouse.authenticate(phone.accessToken)).resolves.toMatchObject({ userId: h.userId });
    expect((await h.login("laptop")).kind).toBe("mfa_required");
  });
});

describe("SetUserDisabled", () => {
  it("a disabled user's right password is refused with a clear answer; a wrong one is answered as for anyone", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    await h.gatehouse.admin.disableUser(SYSTEM, { userId: h.userId });
    const refusal = await h.login("laptop").catch((error: unknown) => error);
    expect(refusal).toMatchObject({ kind: "permission_denied", message: "this account is disabled" });
    expect(await kindOf(h.login("laptop", "ada@example.com", "not the password"))).toBe("invalid_credentials");
    expect(await events(h, "sign_in.failed")).toEqual(
      expect.arrayContaining([expect.objectContaining({ userId: h.userId, payload: { reason: "user_disabled" } })]),
    );
  });

  it("ends the user's sessions in every org, and refresh and VerifyMFA refuse them", async () => {
    const h = await createHarness();
    const { orgId: other } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: other, email: "ada@example.com", role: "member" });
    const tokens = await signInWithPhone(h, "laptop");
    const pending = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: other, deviceFingerprint: "laptop" });
    if (pending.kind !== "mfa_required") throw new Error(pending.kind);
    const { challengeId } = pending.challenge;

    await h.gatehouse.admin.disableUser(SYSTEM, { userId: h.userId });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! }))).toBe("invalid_mfa_challenge");
    expect(await events(h, "user.disabled")).toEqual([expect.objectContaining({ actor: { kind: "system" }, orgId: null, userId: h.userId, payload: {} })]);
    expect(await events(h, "session.revoked")).toEqual([
      expect.objectContaining({ userId: h.userId, payload: { reason: "user_disabled", sessionId: null, count: 1 } }),
    ]);
  });

  it("VerifyMFA refuses a disabled user whose challenge outlived the disabling", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    const pending = await h.login("phone");
    if (pending.kind !== "mfa_required") throw new Error(pending.kind);
    const { challengeId } = pending.challenge;
    await h.stores.users.setDisabled(h.userId, h.clock.now());
    const refusal = await h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ kind: "permission_denied", message: "this account is disabled" });
  });

  it("a refresh racing the disabling is refused and its session revoked", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    await h.stores.users.setDisabled(h.userId, h.clock.now());
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
  });

  it("enabled again, the user signs in, with MFA on a device trusted before", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    await h.gatehouse.admin.disableUser(SYSTEM, { userId: h.userId });
    await h.gatehouse.admin.enableUser(SYSTEM, { userId: h.userId });
    expect((await h.login("laptop")).kind).toBe("mfa_required");
    expect(await events(h, "user.enabled")).toHaveLength(1);
  });

  it("asking for the state the user is in records nothing", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.enableUser(SYSTEM, { userId: h.userId });
    await h.gatehouse.admin.disableUser(SYSTEM, { userId: h.userId });
    await h.gatehouse.admin.disableUser(SYSTEM, { userId: h.userId });
    expect(await events(h, "user.disabled")).toHaveLength(1);
    expect(await events(h, "user.enabled")).toHaveLength(0);
  });

  it("is for platform admins only, who cannot disable themselves; an unknown user is not_found", async () => {
    const h = await createHarness();
    const admin = await orgAdmin(h);
    expect(await kindOf(h.gatehouse.admin.disableUser(admin, { userId: h.userId }))).toBe("permission_denied");
    const { userId: rootId } = await h.gatehouse.register({ email: "platform@example.com", password: PASSWORD, platformAdmin: true });
    const platform: Actor = { kind: "user", userId: rootId, orgId: h.orgId };
    expect(await kindOf(h.gatehouse.admin.disableUser(platform, { userId: rootId }))).toBe("invalid_argument");
    expect(await kindOf(h.gatehouse.admin.disableUser(platform, { userId: "00000000-0000-4000-8000-000000000000" }))).toBe("not_found");
    await h.gatehouse.admin.disableUser(platform, { userId: h.userId });
    expect((await h.stores.users.findById(h.userId))?.disabledAt).toBe(h.clock.now());
  });
});
