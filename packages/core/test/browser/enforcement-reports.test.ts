import { describe, expect, it, vi } from "vitest";
import type { EnforcementEventInput } from "../../src/index.ts";
import { createHarness, signInWithPhone } from "../harness.ts";

async function memberHarness(config: Parameters<typeof createHarness>[0] = {}) {
  const h = await createHarness(config);
  const principal = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
  const blocked = async () => (await h.stores.audit.list({ orgId: h.orgId, kinds: ["browser.blocked"], limit: 100 })).events;
  const setReporting = (enforcementReporting: "full" | "host_only" | "off") =>
    h.gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId: h.orgId, patch: { enforcementReporting } });
  return { ...h, principal, blocked, setReporting };
}

const navigation = (at: number, url = "https://user:pw@Bad.Example:8443/reset/path?token=secret#frag"): EnforcementEventInput => ({
  kind: "navigation_blocked",
  rule: "blocked",
  url,
  at,
});

describe("reportEnforcementEvents", () => {
  it("records the rule and the host key only by default (host_only), as the member's events on their device", async () => {
    const h = await memberHarness();
    const now = h.clock.now();
    const outcome = await h.gatehouse.reportEnforcementEvents(h.principal, {
      orgId: h.orgId,
      events: [navigation(now - 5_000), { kind: "copy_paste_blocked", rule: "copy_paste", url: "https://ok.example/doc", at: now - 1_000 }],
      request: { clientIp: "203.0.113.9", userAgent: "Chromium" },
    });
    expect(outcome).toEqual({ recorded: 2 });
    const events = await h.blocked();
    expect(events.map((e) => ({ at: e.at, payload: e.payload }))).toEqual([
      { at: now - 1_000, payload: { kind: "copy_paste_blocked", rule: "copy_paste", host: "ok.example" } },
      { at: now - 5_000, payload: { kind: "navigation_blocked", rule: "blocked", host: "bad.example" } },
    ]);
    expect(events[0]).toMatchObject({
      actor: { kind: "user", userId: h.userId },
      userId: h.userId,
      orgId: h.orgId,
      deviceId: h.principal.deviceId,
      clientIp: "203.0.113.9",
      userAgent: "Chromium",
    });
  });

  it("under full adds the URL without userinfo, query and fragment; another scheme keeps its name only", async () => {
    const h = await memberHarness();
    await h.setReporting("full");
    const now = h.clock.now();
    await h.gatehouse.reportEnforcementEvents(h.principal, {
      orgId: h.orgId,
      events: [navigation(now - 2), navigation(now - 1, "data:text/html,<p>secret</p>")],
    });
    expect((await h.blocked()).map((e) => e.payload)).toEqual([
      { kind: "navigation_blocked", rule: "blocked", host: null, url: "data:" },
      { kind: "navigation_blocked", rule: "blocked", host: "bad.example", url: "https://bad.example:8443/reset/path" },
    ]);
  });

  it("under off accepts the batch and stores nothing", async () => {
    const h = await memberHarness();
    await h.setReporting("off");
    expect(await h.gatehouse.reportEnforcementEvents(h.principal, { orgId: h.orgId, events: [navigation(h.clock.now())] })).toEqual({ recorded: 0 });
    expect(await h.blocked()).toEqual([]);
  });

  it("records a time later than now as now", async () => {
    const h = await memberHarness();
    await h.gatehouse.reportEnforcementEvents(h.principal, { orgId: h.orgId, events: [navigation(h.clock.now() + 3_600_000)] });
    expect((await h.blocked())[0]?.at).toBe(h.clock.now());
  });

  it("refuses a batch over 50, an unknown kind, a bad rule, an empty or oversized URL and a bad time, storing nothing", async () => {
    const h = await memberHarness();
    const now = h.clock.now();
    const report = (events: EnforcementEventInput[]) => h.gatehouse.reportEnforcementEvents(h.principal, { orgId: h.orgId, events });
    await expect(report(Array.from({ length: 51 }, () => navigation(now)))).rejects.toMatchObject({ kind: "invalid_argument", details: { field: "events" } });
    await expect(report([navigation(now), { ...navigation(now), kind: "tab_closed" }])).rejects.toMatchObject({ details: { field: "events[1].kind" } });
    await expect(report([{ ...navigation(now), rule: "" }])).rejects.toMatchObject({ details: { field: "events[0].rule" } });
    await expect(report([{ ...navigation(now), rule: "a b" }])).rejects.toMatchObject({ details: { field: "events[0].rule" } });
    await expect(report([{ ...navigation(now), url: "" }])).rejects.toMatchObject({ details: { field: "events[0].url" } });
    await expect(report([{ ...navigation(now), url: `https://x.example/${"a".repeat(8192)}` }])).rejects.toMatchObject({ details: { field: "events[0].url" } });
    await expect(report([{ ...navigation(now), at: Number.NaN }])).rejects.toMatchObject({ details: { field: "events[0].at" } });
    expect(await h.blocked()).toEqual([]);
    await expect(report(Array.from({ length: 50 }, () => navigation(now)))).resolves.toEqual({ recorded: 50 });
  });

  it("refuses the setting's unknown values", async () => {
    const h = await memberHarness();
    await expect(
      h.gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId: h.orgId, patch: { enforcementReporting: "everything" as "full" } }),
    ).rejects.toMatchObject({ kind: "invalid_argument", details: { field: "enforcement_reporting" } });
  });

  it("limits each session's batches, counted per session, and writes nothing past the limit", async () => {
    const h = await memberHarness({ enforcementReportsPerSession: [{ limit: 2, windowMs: 60_000 }] });
    const report = (principal = h.principal) => h.gatehouse.reportEnforcementEvents(principal, { orgId: h.orgId, events: [navigation(h.clock.now())] });
    await report();
    await report();
    await expect(report()).rejects.toMatchObject({ kind: "rate_limited" });
    expect(await h.blocked()).toHaveLength(2);
    const other = await h.gatehouse.authenticate((await signInWithPhone(h, "desktop")).accessToken);
    await expect(report(other)).resolves.toEqual({ recorded: 1 });
    h.clock.advance(60_000);
    await expect(report()).resolves.toEqual({ recorded: 1 });
  });

  it("fails closed when the limiter cannot answer", async () => {
    const h = await memberHarness();
    vi.spyOn(h.stores.rateLimiter, "consumeMany").mockRejectedValue(new Error("limiter down"));
    await expect(h.gatehouse.reportEnforcementEvents(h.principal, { orgId: h.orgId, events: [navigation(h.clock.now())] })).rejects.toThrow("limiter down");
    expect(await h.blocked()).toEqual([]);
  });

  it("refuses a session of another org, storing nothing there", async () => {
    const h = await memberHarness();
    const { orgId: otherOrg } = await h.gatehouse.admin.createOrg({ kind: "system" }, { name: "Other" });
    await expect(h.gatehouse.reportEnforcementEvents(h.principal, { orgId: otherOrg, events: [navigation(h.clock.now())] })).rejects.toMatchObject({
      kind: "permission_denied",
    });
    expect(await h.stores.audit.list({ orgId: otherOrg, kinds: ["browser.blocked"], limit: 10 })).toMatchObject({ events: [] });
  });
});
