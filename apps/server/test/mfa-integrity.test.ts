/**
 * Issue 15 over the wire, on SQLite and on PostgreSQL: the real `gatehouse serve` process in dev
 * OTP mode. Each case failed on the code before the fix; docs/security.md names them.
 */
import { Code } from "@connectrpc/connect";
import { SYSTEM_ACTOR, type Gatehouse, type OrgMfaSettings } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import type { ServerProcess } from "./support/server-process.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";
import { finishWithDevOtp, verifyWithDevOtp } from "./support/step-up.ts";

const PASSWORD = "correct horse battery";

const dialects = await wireDialects("the PostgreSQL variant of the MFA integrity tests", "gh_i15");

describe.each(dialects)("MFA that cannot be skipped, over the wire (%s)", (_name, openDatabase, enabled) => {
  let server: ServerProcess;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let counter = 0;

  serveOverTheWire(openDatabase, enabled, {}, (wire) => {
    ({ server, storage, operator, api } = wire);
  });

  /**
   * A fresh org and member for each case (no case sees another's devices, phones or limits),
   * written by a core of the test's own on the same database, as the CLI would: in process, so
   * no case waits seconds for a CLI process while the client's keep-alive connection idles.
   */
  async function seed(options: { settings?: Partial<OrgMfaSettings>; platformAdmin?: boolean } = {}) {
    const n = ++counter;
    const email = `user${n}@example.com`;
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Org ${n}` });
    const { userId } = await operator.register({ email, password: PASSWORD, platformAdmin: options.platformAdmin ?? false, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "admin" });
    if (options.settings !== undefined) await operator.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId, patch: options.settings });
    const phone = `+1555200${String(n).padStart(4, "0")}`;
    const login = (fingerprint?: string, org = orgId) =>
      api.auth.login({ email, password: PASSWORD, orgId: org, ...(fingerprint === undefined ? {} : { deviceFingerprint: fingerprint }) });
    return { n, email, orgId, userId, phone, login };
  }

  const onlyNewDeviceRule = { requireMfaUntrustedDevice: false, trustDeviceAfterMfa: false };

  async function intentFor(login: Promise<{ result: { case: string | undefined; value?: unknown } }>) {
    const outcome = await login;
    if (outcome.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${outcome.result.case}`);
    return (outcome.result.value as { intentId: string }).intentId;
  }

  async function signIn(member: Awaited<ReturnType<typeof seed>>, fingerprint = "laptop") {
    return finishWithDevOtp(api, await member.login(fingerprint), member.phone);
  }

  it.runIf(enabled)("1. logging in twice on a new device still needs MFA (fingerprint and password-login)", async () => {
    const member = await seed({ settings: onlyNewDeviceRule });
    expect((await member.login("laptop")).result.case).toBe("phoneRequired");
    expect((await member.login("laptop")).result.case).toBe("phoneRequired");
    expect((await member.login()).result.case).toBe("phoneRequired");
    expect((await member.login()).result.case).toBe("phoneRequired");
    await signIn(member, "laptop");
    expect((await member.login("laptop")).result.case).toBe("tokens");
  });

  it.runIf(enabled)("2. under the defaults, a device whose trust expired needs MFA again", async () => {
    const member = await seed();
    await signIn(member, "laptop");
    expect((await member.login("laptop")).result.case).toBe("tokens");
    const [device] = await storage.stores.devices.listByUser(member.orgId, member.userId);
    await storage.stores.devices.markTrusted(device!.id, Date.now() - 1);
    expect((await member.login("laptop")).result.case).toBe("mfaRequired");
  });

  it.runIf(enabled)("3. a session issued for one org is refused for another: JSON routes, BrowserService, AdminService (platform admin too)", async () => {
    const member = await seed({ platformAdmin: true });
    const other = await seed();
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId: other.orgId, email: member.email, role: "admin" });
    const tokens = await signIn(member);
    const auth = bearer(tokens.accessToken);

    const policy = await fetch(`${server.url}/api/browser/policy?org_id=${other.orgId}`, { headers: auth.headers });
    expect(policy.status).toBe(403);
    const check = await fetch(`${server.url}/api/browser/check-url`, {
      method: "POST",
      headers: { ...auth.headers, "content-type": "application/json" },
      body: JSON.stringify({ org_id: other.orgId, url: "https://example.com/" }),
    });
    expect(check.status).toBe(403);
    expect((await rpcError(api.browser.getBrowserPolicy({ orgId: other.orgId }, auth))).code).toBe(Code.PermissionDenied);
    expect((await rpcError(api.browser.checkUrlAccess({ orgId: other.orgId, url: "https://example.com/" }, auth))).code).toBe(Code.PermissionDenied);
    const denied = await rpcError(api.admin.updateOrgMfaSettings({ orgId: other.orgId, requireMfaNewDevice: false }, auth));
    expect(denied.code).toBe(Code.PermissionDenied);
    expect((await rpcError(api.admin.getOrgBrowserPolicy({ orgId: other.orgId }, auth))).code).toBe(Code.PermissionDenied);
    expect((await rpcError(api.admin.revokeUserSessions({ orgId: other.orgId, userId: other.userId }, auth))).code).toBe(Code.PermissionDenied);
    expect(await storage.stores.settings.getOrg(other.orgId)).toBeNull();

    await expect(api.browser.getBrowserPolicy({ orgId: member.orgId }, auth)).resolves.toBeTruthy();
    await expect(api.admin.getPlatformSettings({}, auth)).resolves.toBeTruthy();
  });

  it.runIf(enabled)("4. two intents, two phones: after the first locks the phone, the second answers Unauthenticated", async () => {
    const member = await seed();
    const first = await api.auth.submitPhoneAndRequestMFA({ intentId: await intentFor(member.login("laptop")), phone: member.phone });
    const second = await api.auth.submitPhoneAndRequestMFA({ intentId: await intentFor(member.login("tablet")), phone: "+15559990000" });
    await verifyWithDevOtp(api, first.challengeId);
    const error = await rpcError(verifyWithDevOtp(api, second.challengeId));
    expect(error.code).toBe(Code.Unauthenticated);
    expect(error.rawMessage).toBe("invalid or expired MFA challenge");
    expect(await storage.stores.users.findById(member.userId)).toMatchObject({ phone: member.phone, phoneVerified: true });
  });

  it.runIf(enabled)("4. a member removed after Login: SubmitPhone and VerifyMFA answer PermissionDenied", async () => {
    const member = await seed();
    const intentId = await intentFor(member.login("laptop"));
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: await intentFor(member.login("tablet")), phone: member.phone });
    await operator.admin.removeMember(SYSTEM_ACTOR, { orgId: member.orgId, userId: member.userId });
    expect((await rpcError(api.auth.submitPhoneAndRequestMFA({ intentId, phone: member.phone }))).code).toBe(Code.PermissionDenied);
    expect((await rpcError(verifyWithDevOtp(api, challengeId))).code).toBe(Code.PermissionDenied);
  });

  it.runIf(enabled)("inputs: NUL, zero-width and bidi characters in an email answer InvalidArgument naming the field, never 500", async () => {
    // A lone surrogate cannot cross the wire: protobuf's UTF-8 encoding turns it into U+FFFD (the core test covers it).
    for (const email of ["ada\u0000@example.com", "ada\u0007@example.com", "ada\u200b@example.com", "ada\u202e@example.com", "ada\ue000@example.com"]) {
      const register = await rpcError(api.auth.register({ email, password: PASSWORD }));
      expect(register.code).toBe(Code.InvalidArgument);
      expect(register.rawMessage).toMatch(/^email: /);
      const login = await rpcError(api.auth.login({ email, password: PASSWORD, orgId: "org" }));
      expect(login.code).toBe(Code.InvalidArgument);
    }
    const fingerprint = await rpcError(api.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: "org", deviceFingerprint: "lap\u0000top" }));
    expect(fingerprint.rawMessage).toMatch(/^device_fingerprint: /);
    const displayName = await rpcError(api.auth.register({ email: "new@example.com", password: PASSWORD, displayName: "Ada\u0000" }));
    expect(displayName.rawMessage).toMatch(/^display_name: /);
    expect(server.logs.join("\n")).not.toContain("unexpected error");
  });

  it.runIf(enabled)("inputs: a case variant or a decomposed spelling of an email is the same account", async () => {
    const member = await seed();
    const owner = await storage.stores.users.findByEmail(member.email);
    for (const email of [member.email.toUpperCase(), ` ${member.email}\n`]) {
      // Register no longer tells a taken email apart: it answers alike and creates nothing.
      const { userId } = await api.auth.register({ email, password: PASSWORD });
      expect(await storage.stores.users.findById(userId)).toBeNull();
    }
    expect(await storage.stores.users.findByEmail(member.email)).toEqual(owner);
    const { userId } = await api.auth.register({ email: "jose\u0301@example.com", password: PASSWORD });
    expect((await storage.stores.users.findById(userId))?.email).toBe("jos\u00e9@example.com");
    const again = await api.auth.register({ email: "JOS\u00c9@example.com", password: PASSWORD });
    expect(await storage.stores.users.findById(again.userId)).toBeNull();
  });

  it.runIf(enabled)("sessions: 50 parallel Refresh with one token all get the same pair, and the session stays active", async () => {
    const member = await seed();
    const tokens = await signIn(member);
    const results = await Promise.all(Array.from({ length: 50 }, () => api.auth.refresh({ refreshToken: tokens.refreshToken })));
    const pairs = new Set(
      results.map((r) => (r.result.case === "tokens" ? `${r.result.value.accessToken}/${r.result.value.refreshToken}` : String(r.result.case))),
    );
    expect(pairs.size).toBe(1);
    const [first] = results;
    if (first?.result.case !== "tokens") throw new Error("expected tokens");
    await expect(api.browser.getBrowserPolicy({ orgId: member.orgId }, bearer(first.result.value.accessToken))).resolves.toBeTruthy();
    expect((await api.auth.refresh({ refreshToken: first.result.value.refreshToken })).result.case).toBe("tokens");
  });
});
