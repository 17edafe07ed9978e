import { describe, expect, it } from "vitest";
import { createHarness, signInWithPhone } from "./harness.ts";

describe("admitting a browser policy save before its policy is read", () => {
  it("admits an org admin with a fresh second factor up to browserPolicyWritesPerUser a window, and records the refusal past it", async () => {
    const h = await createHarness({ browserPolicyWritesPerUser: [{ limit: 2, windowMs: 60_000 }] });
    await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: h.orgId, email: "ada@example.com", role: "admin" });
    const admin = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    await h.gatehouse.admin.admitBrowserPolicyWrite(admin);
    await h.gatehouse.admin.admitBrowserPolicyWrite(admin);
    await expect(h.gatehouse.admin.admitBrowserPolicyWrite(admin, { clientIp: "203.0.113.9" })).rejects.toMatchObject({
      kind: "rate_limited",
      details: { retryAfterSeconds: 60 },
    });
    const refusals = (await h.stores.audit.list({ limit: 10, kinds: ["rate_limited"] })).events;
    expect(refusals).toMatchObject([{ orgId: h.orgId, clientIp: "203.0.113.9", payload: { limit: "browser_policy_writes_per_user" } }]);
    h.clock.advance(60_000);
    await h.gatehouse.admin.admitBrowserPolicyWrite(admin);
  });

  it("refuses a member who is not the session's org's admin, and an admin whose second factor is stale, without spending the budget", async () => {
    const h = await createHarness({ browserPolicyWritesPerUser: [{ limit: 1, windowMs: 60 * 60_000 }] });
    const member = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    await expect(h.gatehouse.admin.admitBrowserPolicyWrite(member)).rejects.toMatchObject({ kind: "permission_denied" });
    await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: h.orgId, email: "ada@example.com", role: "admin" });
    h.clock.advance(30 * 60_000);
    await expect(h.gatehouse.admin.admitBrowserPolicyWrite(member)).rejects.toMatchObject({ kind: "step_up_required" });
    const fresh = await h.gatehouse.authenticate((await signInWithPhone(h, "phone")).accessToken);
    await h.gatehouse.admin.admitBrowserPolicyWrite(fresh);
  });
});
