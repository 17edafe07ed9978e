import { describe, expect, it, vi } from "vitest";
import { createGatehouse } from "../src/index.ts";
import { DEFAULT_BROWSER_POLICY, type BrowserPolicyInput } from "../src/url-policy/index.ts";
import { createHarness, signInWithPhone, TEST_PASSWORD_PARAMS } from "./harness.ts";

const blocking = (...blockedDomains: string[]): BrowserPolicyInput => ({
  ...DEFAULT_BROWSER_POLICY,
  accessControl: { ...DEFAULT_BROWSER_POLICY.accessControl, defaultAction: "allow", blockedDomains },
});

async function memberHarness() {
  const h = await createHarness();
  const principal = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
  return { ...h, principal };
}

describe("browser policy reads", () => {
  it("applies the default policy until the org saves one, then the saved one at the next check", async () => {
    const h = await memberHarness();
    expect(await h.gatehouse.getBrowserPolicy(h.principal, h.orgId)).toEqual(DEFAULT_BROWSER_POLICY);
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).allowed).toBe(
      DEFAULT_BROWSER_POLICY.accessControl.defaultAction === "allow",
    );
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("bad.example"));
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://good.example")).allowed).toBe(true);
  });

  it("sees a policy another replica saved on the shared stores at the next check", async () => {
    const h = await memberHarness();
    const otherReplica = createGatehouse({
      stores: h.stores,
      clock: h.clock,
      random: h.random,
      sms: h.sms,
      email: h.email,
      config: { password: TEST_PASSWORD_PARAMS },
    });
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).reasonCode).not.toBe("blocked");
    await otherReplica.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("bad.example"));
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
    await otherReplica.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("worse.example"));
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).allowed).toBe(true);
  });

  it("asks the store for a version check only while the version it holds is current", async () => {
    const h = await memberHarness();
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("bad.example"));
    const getIfChanged = vi.spyOn(h.stores.browserPolicies, "getIfChanged");
    for (let i = 0; i < 3; i++) await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example");
    expect(getIfChanged.mock.calls.map(([, version]) => version)).toEqual([-1, 1, 1]);
    expect(await Promise.all(getIfChanged.mock.results.map((result) => result.value))).toEqual([
      expect.objectContaining({ version: 1 }),
      "unchanged",
      "unchanged",
    ]);
  });

  it("shares one frozen policy between requests, so no caller can change what the next one sees", async () => {
    const h = await memberHarness();
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, h.orgId, blocking("bad.example"));
    const policy = await h.gatehouse.getBrowserPolicy(h.principal, h.orgId);
    expect(await h.gatehouse.getBrowserPolicy(h.principal, h.orgId)).toBe(policy);
    expect(() => (policy.accessControl.blockedDomains as string[]).pop()).toThrow(TypeError);
  });
});
