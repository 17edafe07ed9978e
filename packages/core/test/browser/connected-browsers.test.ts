import { describe, expect, it } from "vitest";
import { CONNECTED_WITHIN_MS, GatehouseError, SYSTEM_ACTOR, type Actor, type Principal } from "../../src/index.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "../harness.ts";

const POLICY = {
  accessControl: { allowedDomains: ["example.com"], blockedDomains: [], defaultAction: "deny", wildcardSupported: true },
  actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
} as const;

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof GatehouseError) return `${error.kind}: ${error.message}`;
    throw error;
  }
}

/** Ada signed in twice: her web session and her extension's session (another device); Bob, an admin of the org. */
async function setUp(): Promise<{ h: Harness; web: Principal; extension: Principal; bob: Actor }> {
  const h = await createHarness();
  const { userId: bobId } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
  await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "bob@example.com", role: "admin" });
  await h.gatehouse.admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, { orgId: h.orgId, policy: POLICY });
  const web = await h.gatehouse.authenticate((await signInWithPhone(h, "laptop")).accessToken);
  const extension = await h.gatehouse.authenticate((await signInWithPhone(h, "extension")).accessToken);
  return { h, web, extension, bob: { kind: "user", userId: bobId, orgId: h.orgId } };
}

describe("connected browsers", () => {
  it("a rules poll records the extension's version and the policy version it now holds; the org's admin lists it", async () => {
    const { h, extension, bob } = await setUp();
    await h.gatehouse.getExtensionPolicy(extension, { orgId: h.orgId, extensionVersion: "0.1.0" });
    const polledAt = h.clock.now();
    expect(await h.gatehouse.admin.listConnectedBrowsers(bob, { orgId: h.orgId })).toEqual([
      {
        sessionId: extension.sessionId,
        userId: h.userId,
        email: "ada@example.com",
        deviceId: extension.deviceId,
        deviceLabel: "Unknown device",
        extensionVersion: "0.1.0",
        policyVersion: 1,
        currentPolicyVersion: 1,
        lastPollAt: polledAt,
        connected: true,
      },
    ]);
    await h.gatehouse.admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, { orgId: h.orgId, policy: POLICY });
    h.clock.advance(CONNECTED_WITHIN_MS + 1);
    expect(await h.gatehouse.admin.listConnectedBrowsers(bob, { orgId: h.orgId })).toEqual([
      expect.objectContaining({ policyVersion: 1, currentPolicyVersion: 2, connected: false }),
    ]);
  });

  it("a revoked extension session is no longer listed", async () => {
    const { h, extension, bob } = await setUp();
    await h.gatehouse.getExtensionPolicy(extension, { orgId: h.orgId });
    await h.gatehouse.admin.revokeMemberSession(bob, { orgId: h.orgId, userId: h.userId, sessionId: extension.sessionId });
    expect(await h.gatehouse.admin.listConnectedBrowsers(bob, { orgId: h.orgId })).toEqual([]);
  });

  it("refuses a plain member and another org's admin", async () => {
    const { h, web } = await setUp();
    expect(await kindOf(h.gatehouse.admin.listConnectedBrowsers({ kind: "user", userId: web.userId, orgId: h.orgId }, { orgId: h.orgId }))).toBe(
      "permission_denied: organization admin role required",
    );
    const { orgId: otherOrg } = await h.gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Other" });
    const { userId: carolId } = await h.gatehouse.register({ email: "carol@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: otherOrg, email: "carol@example.com", role: "admin" });
    expect(await kindOf(h.gatehouse.admin.listConnectedBrowsers({ kind: "user", userId: carolId, orgId: otherOrg }, { orgId: h.orgId }))).toMatch(
      /^permission_denied/,
    );
  });

  it.each(["x".repeat(33), "0.1 beta", "0.1\n", "ünicode"])("refuses the extension version %j", async (version) => {
    const { h, extension } = await setUp();
    expect(await kindOf(h.gatehouse.getExtensionPolicy(extension, { orgId: h.orgId, extensionVersion: version }))).toMatch(
      /^invalid_argument: x-gatehouse-extension/,
    );
  });
});

describe("require_browser_extension", () => {
  it("is off by default: check-url answers as ever", async () => {
    const { h, web } = await setUp();
    expect((await h.gatehouse.checkUrlAccess(web, h.orgId, "https://example.com/")).allowed).toBe(true);
  });

  it("refuses an allowed URL until the member's extension polled the current version, and again once it is stale", async () => {
    const { h, web, extension } = await setUp();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId: h.orgId, patch: { requireBrowserExtension: true } });
    expect(await h.gatehouse.checkUrlAccess(web, h.orgId, "https://example.com/")).toMatchObject({ allowed: false, reasonCode: "extension_required" });
    await h.gatehouse.getExtensionPolicy(extension, { orgId: h.orgId, extensionVersion: "0.1.0" });
    expect(await h.gatehouse.checkUrlAccess(web, h.orgId, "https://example.com/")).toEqual({ allowed: true, canonicalUrl: "https://example.com/" });
    // A denial stays the URL's own.
    expect(await h.gatehouse.checkUrlAccess(web, h.orgId, "https://other.example/")).toMatchObject({ reasonCode: "not_allowed" });

    await h.gatehouse.admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, { orgId: h.orgId, policy: POLICY });
    expect(await h.gatehouse.checkUrlAccess(web, h.orgId, "https://example.com/")).toMatchObject({ allowed: false, reasonCode: "extension_out_of_date" });
    await h.gatehouse.getExtensionPolicy(extension, { orgId: h.orgId });
    expect((await h.gatehouse.checkUrlAccess(web, h.orgId, "https://example.com/")).allowed).toBe(true);

    h.clock.advance(CONNECTED_WITHIN_MS + 1);
    expect(await h.gatehouse.checkUrlAccess(web, h.orgId, "https://example.com/")).toMatchObject({ reasonCode: "extension_required" });
  });
});
