import { describe, expect, it, vi } from "vitest";
import { isGatehouseError, type ErrorKind } from "../src/errors.ts";
import { DEFAULT_BROWSER_POLICY, type BrowserPolicyInput } from "../src/url-policy/index.ts";
import { createHarness, signInWithPhone } from "./harness.ts";

const blocking = (...blockedDomains: string[]): BrowserPolicyInput => ({
  ...DEFAULT_BROWSER_POLICY,
  accessControl: { ...DEFAULT_BROWSER_POLICY.accessControl, defaultAction: "allow", blockedDomains },
});

async function kindOf(operation: Promise<unknown>): Promise<ErrorKind | "resolved"> {
  return operation.then(
    () => "resolved",
    (error: unknown) => {
      if (isGatehouseError(error)) return error.kind;
      throw error;
    },
  );
}

async function signedIn() {
  const h = await createHarness();
  const { accessToken } = await signInWithPhone(h);
  return { ...h, accessToken };
}

describe("browser requests from a bearer token (gatehouse.browser)", () => {
  it("answers a member with one store read per request, and no other session, membership or policy read", async () => {
    const h = await signedIn();
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("bad.example"));
    const resolve = vi.spyOn(h.stores.browserAccess, "resolve");
    const others = [
      vi.spyOn(h.stores.sessions, "findActiveByAccessTokenHash"),
      vi.spyOn(h.stores.orgs, "findMembership"),
      vi.spyOn(h.stores.browserPolicies, "getIfChanged"),
      vi.spyOn(h.stores.browserPolicies, "get"),
    ];
    for (let i = 0; i < 3; i++) expect((await h.gatehouse.browser.checkUrlAccess(h.accessToken, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
    expect((await h.gatehouse.browser.getBrowserPolicy(h.accessToken, h.orgId)).accessControl.blockedDomains).toEqual(["bad.example"]);
    expect(resolve.mock.calls.map(([, orgId, version]) => [orgId, version])).toEqual([
      [h.orgId, -1],
      [h.orgId, 1],
      [h.orgId, 1],
      [h.orgId, 1],
    ]);
    for (const other of others) expect(other).not.toHaveBeenCalled();
  });

  it("applies a policy saved since the last request at the next one", async () => {
    const h = await signedIn();
    expect((await h.gatehouse.browser.checkUrlAccess(h.accessToken, h.orgId, "https://bad.example")).reasonCode).not.toBe("blocked");
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("bad.example"));
    expect((await h.gatehouse.browser.checkUrlAccess(h.accessToken, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
  });

  it("refuses as authenticate and requireMember did, in the same order", async () => {
    const h = await signedIn();
    const other = await h.gatehouse.admin.createOrg({ kind: "system" }, "Other");
    const { browser } = h.gatehouse;
    const cases: [string, () => Promise<unknown>, ErrorKind | "resolved"][] = [
      ["a valid request", () => browser.checkUrlAccess(h.accessToken, h.orgId, "https://a.example"), "resolved"],
      ["no token", () => browser.checkUrlAccess("", h.orgId, "https://a.example"), "unauthenticated"],
      ["an unknown token", () => browser.checkUrlAccess("gh_at_unknown", h.orgId, "https://a.example"), "unauthenticated"],
      ["an unknown token and no url", () => browser.checkUrlAccess("gh_at_unknown", h.orgId, " "), "unauthenticated"],
      ["an unknown token and a malformed org id", () => browser.getBrowserPolicy("gh_at_unknown", "not an id"), "unauthenticated"],
      ["no url", () => browser.checkUrlAccess(h.accessToken, h.orgId, " "), "invalid_argument"],
      ["no org id", () => browser.getBrowserPolicy(h.accessToken, ""), "invalid_argument"],
      ["another org (policy)", () => browser.getBrowserPolicy(h.accessToken, other.orgId), "permission_denied"],
      ["another org (check)", () => browser.checkUrlAccess(h.accessToken, other.orgId, "https://a.example"), "permission_denied"],
      ["another org (org info)", () => browser.getOrgInfo(h.accessToken, other.orgId), "permission_denied"],
    ];
    for (const [name, call, expected] of cases) expect([name, await kindOf(call())]).toEqual([name, expected]);
    expect(await browser.getOrgInfo(h.accessToken, h.orgId)).toEqual({ orgId: h.orgId, name: "Acme", slug: "acme" });
  });

  it("refuses a removed member and a revoked session at the very next request", async () => {
    const h = await signedIn();
    expect(await kindOf(h.gatehouse.browser.getBrowserPolicy(h.accessToken, h.orgId))).toBe("resolved");
    // Straight in the store: admin.removeMember also revokes the user's sessions, which would hide the membership check.
    await h.stores.orgs.removeMembership(h.orgId, h.userId);
    expect(await kindOf(h.gatehouse.browser.checkUrlAccess(h.accessToken, h.orgId, "https://a.example"))).toBe("not_org_member");

    const again = await signedIn();
    await again.gatehouse.browser.getBrowserPolicy(again.accessToken, again.orgId);
    await again.gatehouse.logout(await again.gatehouse.authenticate(again.accessToken));
    expect(await kindOf(again.gatehouse.browser.getBrowserPolicy(again.accessToken, again.orgId))).toBe("unauthenticated");
  });
});
