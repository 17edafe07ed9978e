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

/** Another replica on the same stores: what it saves, the harness's gatehouse reads from the store. */
function otherReplica(h: Awaited<ReturnType<typeof memberHarness>>, pause?: () => Promise<void>) {
  return createGatehouse({
    stores: h.stores,
    clock: h.clock,
    random: h.random,
    sms: h.sms,
    email: h.email,
    config: { password: TEST_PASSWORD_PARAMS },
    ...(pause === undefined ? {} : { pause }),
  });
}

describe("browser policy reads", () => {
  it("applies the default policy until the org saves one, then the saved one at the next check", async () => {
    const h = await memberHarness();
    expect(await h.gatehouse.getBrowserPolicy(h.principal, h.orgId)).toEqual({ policy: DEFAULT_BROWSER_POLICY, version: 0 });
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).allowed).toBe(
      DEFAULT_BROWSER_POLICY.accessControl.defaultAction === "allow",
    );
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
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
    await otherReplica.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
    await otherReplica.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("worse.example") });
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).allowed).toBe(true);
  });

  it("reads a version's policy once and otherwise asks the store for the membership and version only, in one read", async () => {
    const h = await memberHarness();
    await otherReplica(h).admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
    const membershipAndVersion = vi.spyOn(h.stores.browserPolicies, "membershipAndVersion");
    const findMembership = vi.spyOn(h.stores.orgs, "findMembership");
    const get = vi.spyOn(h.stores.browserPolicies, "get");
    for (let i = 0; i < 3; i++) await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example");
    expect(membershipAndVersion).toHaveBeenCalledTimes(3);
    expect(findMembership).not.toHaveBeenCalled();
    expect(get).toHaveBeenCalledTimes(1);
  });

  it("reads and compiles a new version once however many requests ask for it together", async () => {
    const h = await memberHarness();
    await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example");
    await otherReplica(h).admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
    const get = vi.spyOn(h.stores.browserPolicies, "get");
    const decisions = await Promise.all(Array.from({ length: 30 }, () => h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")));
    // The first request loads the new version; those that arrive while it loads are answered from the previous one.
    expect(decisions[0]!.reasonCode).toBe("blocked");
    expect(get).toHaveBeenCalledTimes(1);
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
    expect(get).toHaveBeenCalledTimes(1);
  });

  it("compiles a large policy in slices, serving the previous version to the requests that arrive meanwhile", async () => {
    const h = await memberHarness();
    // Pauses pass at once, except while `onHeld` is set: then each is held until the test releases it.
    const held: (() => void)[] = [];
    let onHeld: (() => void) | null = null;
    const pause = () =>
      new Promise<void>((resolve) => {
        if (onHeld === null) return resolve();
        held.push(resolve);
        onHeld();
      });
    // The replica reads what the harness's gatehouse saves.
    const replica = otherReplica(h, pause);
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("old.example") });
    expect((await replica.checkUrlAccess(h.principal, h.orgId, "https://old.example")).reasonCode).toBe("blocked");
    const large = Array.from({ length: 10_000 }, (_, i) => `site-${i}.example`);
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("new.example", ...large) });
    const firstPause = new Promise<void>((resolve) => (onHeld = resolve));
    const first = replica.checkUrlAccess(h.principal, h.orgId, "https://new.example");
    await firstPause;
    // The compile is between two slices: a request now gets the previous version at once.
    expect((await replica.checkUrlAccess(h.principal, h.orgId, "https://old.example")).reasonCode).toBe("blocked");
    onHeld = null;
    held.shift()!();
    expect((await first).reasonCode).toBe("blocked");
    expect((await replica.checkUrlAccess(h.principal, h.orgId, "https://old.example")).allowed).toBe(true);
  });

  it("compiles what this replica saved without reading it back, and applies it from the saving admin's next check", async () => {
    const h = await memberHarness();
    await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example");
    const get = vi.spyOn(h.stores.browserPolicies, "get");
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
    expect((await h.gatehouse.checkUrlAccess(h.principal, h.orgId, "https://bad.example")).reasonCode).toBe("blocked");
    expect(get).not.toHaveBeenCalled();
  });

  it("shares one frozen policy between requests, so no caller can change what the next one sees", async () => {
    const h = await memberHarness();
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
    const { policy } = await h.gatehouse.getBrowserPolicy(h.principal, h.orgId);
    expect((await h.gatehouse.getBrowserPolicy(h.principal, h.orgId)).policy).toBe(policy);
    expect(() => (policy.accessControl.blockedDomains as string[]).pop()).toThrow(TypeError);
  });
});

describe("browser policy writes", () => {
  it("validates a large policy in slices: other requests are answered while it is between two of them", async () => {
    const h = await memberHarness();
    const held: (() => void)[] = [];
    let onHeld: (() => void) | null = null;
    const pause = () =>
      new Promise<void>((resolve) => {
        if (onHeld === null) return resolve();
        held.push(resolve);
        onHeld();
      });
    const replica = otherReplica(h, pause);
    const firstPause = new Promise<void>((resolve) => (onHeld = resolve));
    const large = Array.from({ length: 10_000 }, (_, i) => `site-${i}.example`);
    const save = replica.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("new.example", ...large) });
    await firstPause;
    // Nothing is stored yet, and another request is answered meanwhile.
    expect((await h.stores.browserPolicies.membershipAndVersion(h.orgId, h.principal.userId)).version).toBeNull();
    expect((await replica.checkUrlAccess(h.principal, h.orgId, "https://new.example")).reasonCode).not.toBe("blocked");
    onHeld = null;
    held.shift()!();
    expect((await save).accessControl.blockedDomains).toHaveLength(10_001);
    expect((await replica.checkUrlAccess(h.principal, h.orgId, "https://new.example")).reasonCode).toBe("blocked");
  });

  it("limits an org's admins to browserPolicyWritesPerOrg saves a window, per org, and never the CLI", async () => {
    const h = await createHarness({ browserPolicyWritesPerOrg: [{ limit: 2, windowMs: 60_000 }] });
    const admin = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    const { userId } = admin;
    await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: h.orgId, email: "ada@example.com", role: "admin" });
    const actor = { kind: "user", userId, orgId: h.orgId } as const;
    await h.gatehouse.admin.updateOrgBrowserPolicy(actor, { orgId: h.orgId, policy: blocking("a.example") });
    await h.gatehouse.admin.updateOrgBrowserPolicy(actor, { orgId: h.orgId, policy: blocking("b.example") });
    await expect(h.gatehouse.admin.updateOrgBrowserPolicy(actor, { orgId: h.orgId, policy: blocking("c.example") })).rejects.toMatchObject({
      kind: "rate_limited",
    });
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("d.example") });
    h.clock.advance(60_000);
    await h.gatehouse.admin.updateOrgBrowserPolicy(actor, { orgId: h.orgId, policy: blocking("e.example") });
    expect((await h.gatehouse.getBrowserPolicy(admin, h.orgId)).policy.accessControl.blockedDomains).toEqual(["e.example"]);
  });
});

describe("browser calls take the org's id or its short name", () => {
  it("checkUrlAccess, getBrowserPolicy and getOrgInfo accept the slug in any case; another org's slug is another org", async () => {
    const h = await memberHarness();
    const { slug } = (await h.stores.orgs.findById(h.orgId))!;
    expect(slug).toBeTruthy();
    await h.gatehouse.admin.updateOrgBrowserPolicy({ kind: "system" }, { orgId: h.orgId, policy: blocking("bad.example") });
    for (const reference of [h.orgId, slug!, slug!.toUpperCase()]) {
      expect((await h.gatehouse.checkUrlAccess(h.principal, reference, "https://bad.example")).reasonCode, reference).toBe("blocked");
      expect((await h.gatehouse.getBrowserPolicy(h.principal, reference)).version, reference).toBeGreaterThan(0);
      expect((await h.gatehouse.getOrgInfo(h.principal, reference)).orgId, reference).toBe(h.orgId);
    }
    const other = await h.gatehouse.admin.createOrg({ kind: "system" }, { name: "Other", slug: "other-org" });
    await expect(h.gatehouse.checkUrlAccess(h.principal, other.slug, "https://x.example")).rejects.toMatchObject({ kind: "permission_denied" });
    await expect(h.gatehouse.checkUrlAccess(h.principal, "", "https://x.example")).rejects.toMatchObject({ kind: "invalid_argument" });
  });
});
