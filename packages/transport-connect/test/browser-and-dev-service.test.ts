import { Code } from "@connectrpc/connect";
import { beforeEach, describe, expect, it } from "vitest";
import { bearer, createRouterHarness, expectConnectError, PASSWORD, PHONE, type RouterHarness } from "./support/router-harness.ts";

describe("BrowserService over the in-memory router transport", () => {
  let h: RouterHarness;
  let accessToken: string;

  beforeEach(async () => {
    h = await createRouterHarness();
    await h.member("ada@example.com");
    ({ accessToken } = await h.signIn("ada@example.com"));
    await h.gatehouse.admin.updateOrgBrowserPolicy(
      { kind: "system" },
      {
        orgId: h.orgId,
        policy: {
          accessControl: {
            allowedDomains: ["example.com", "*.example.org"],
            blockedDomains: ["evil.example.com"],
            defaultAction: "deny",
            wildcardSupported: true,
          },
          actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: true },
        },
      },
    );
  });

  it("GetOrg answers the org's id, name and slug to a member", async () => {
    expect(await h.browser.getOrg({ orgId: h.orgId }, bearer(accessToken))).toMatchObject({ orgId: h.orgId, name: "Acme", slug: "acme" });
  });

  it("GetBrowserPolicy answers both sections of the stored policy", async () => {
    const policy = await h.browser.getBrowserPolicy({ orgId: h.orgId }, bearer(accessToken));
    expect(policy.accessControl).toMatchObject({
      allowedDomains: ["example.com", "*.example.org"],
      blockedDomains: ["evil.example.com"],
      defaultAction: "deny",
      wildcardSupported: true,
    });
    expect(policy.actionRestrictions).toMatchObject({ allowedActions: ["navigate"], readOnlyMode: true });
  });

  it.each([
    ["https://example.com/a", true, undefined, "https://example.com/a"],
    ["https://Deep.Example.ORG/x", true, undefined, "https://deep.example.org/x"],
    ["https://evil.example.com/", false, "blocked", "https://evil.example.com/"],
    ["javascript:alert(1)", false, "unsupported_scheme", "javascript:alert(1)"],
    ["https://user:pw@example.com/", false, "credentials_in_url", "https://user:pw@example.com/"],
  ])("CheckUrlAccess %s → allowed %s (%s)", async (url, allowed, reasonCode, canonicalUrl) => {
    const decision = await h.browser.checkUrlAccess({ orgId: h.orgId, url }, bearer(accessToken));
    expect({ allowed: decision.allowed, reasonCode: decision.reasonCode, canonicalUrl: decision.canonicalUrl }).toEqual({ allowed, reasonCode, canonicalUrl });
    if (!allowed) expect(decision.reason).not.toContain("pw");
  });

  it("CheckUrlAccess with no URL is InvalidArgument naming the field", async () => {
    await expectConnectError(h.browser.checkUrlAccess({ orgId: h.orgId, url: " " }, bearer(accessToken)), {
      code: Code.InvalidArgument,
      message: expect.stringContaining("url") as unknown as string,
      detail: { kind: "invalid_argument", field: "url" },
    });
  });

  it("a session issued for one org reads nothing of another, even for a member of both", async () => {
    const { orgId: otherOrgId } = await h.gatehouse.admin.createOrg({ kind: "system" }, { name: "Other", slug: "other" });
    await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: otherOrgId, email: "ada@example.com", role: "member" });
    for (const call of [
      h.browser.getOrg({ orgId: otherOrgId }, bearer(accessToken)),
      h.browser.getBrowserPolicy({ orgId: otherOrgId }, bearer(accessToken)),
      h.browser.checkUrlAccess({ orgId: otherOrgId, url: "https://example.com/" }, bearer(accessToken)),
    ]) {
      await expectConnectError(call, { code: Code.PermissionDenied, message: expect.any(String) as unknown as string, detail: { kind: "permission_denied" } });
    }
  });

  it("a member removed from the org is refused as not_org_member", async () => {
    const ada = await h.stores.users.findByEmail("ada@example.com");
    expect(await h.stores.orgs.removeMembership(h.orgId, ada?.id ?? "")).toBe(true);
    await expectConnectError(h.browser.getOrg({ orgId: h.orgId }, bearer(accessToken)), {
      code: Code.PermissionDenied,
      message: "not a member of this organization",
      detail: { kind: "not_org_member" },
    });
  });
});

describe("DevService over the in-memory router transport", () => {
  it("GetOTP answers the code of a live challenge, which then verifies", async () => {
    const h = await createRouterHarness({ devOtps: true });
    await h.member("ada@example.com");
    const login = await h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop" });
    const intentId = login.result.case === "phoneRequired" ? login.result.value.intentId : "";
    const { challengeId } = await h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
    const { otp } = await h.dev.getOTP({ challengeId });
    expect(otp).toBe(h.sms.lastOtpFor(challengeId));
    expect((await h.auth.verifyMFA({ challengeId, otp })).accessToken).not.toBe("");
  });

  it("GetOTP for an unknown challenge is NotFound", async () => {
    const h = await createRouterHarness({ devOtps: true });
    await expectConnectError(h.dev.getOTP({ challengeId: "no-such-challenge" }), {
      code: Code.NotFound,
      message: "no OTP for this challenge",
      detail: { kind: "not_found" },
    });
  });

  it("without dev OTP mode the service is not there: Unimplemented", async () => {
    const h = await createRouterHarness();
    const error = await h.dev.getOTP({ challengeId: "any" }).then(
      () => undefined,
      (reason: unknown) => reason as { code: Code },
    );
    expect(error?.code).toBe(Code.Unimplemented);
  });
});
