/**
 * BrowserService.ReportEnforcementEvents over the wire on SQLite and PostgreSQL: the real `gatehouse serve`, a
 * member's session as the extension holds one, each org's `enforcement_reporting`, and the session's own limit.
 */
import { Code } from "@connectrpc/connect";
import { enforcementEventsToWire } from "@gatehouse/contract";
import { SYSTEM_ACTOR, type EnforcementReporting, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const dialects = await wireDialects("the PostgreSQL variant of the enforcement report tests", "s3_50c");

describe.each(dialects)("BrowserService.ReportEnforcementEvents (%s)", (name, openDatabase, enabled) => {
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let counter = 0;

  serveOverTheWire(openDatabase, enabled, { env: { REFUSAL_PAUSE_MS: "0" } }, (wire) => {
    ({ storage, operator, api } = wire);
  });

  /** A member of an org of its own under `reporting`, signed in through the second factor. */
  async function aMember(reporting: EnforcementReporting) {
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Reports ${name} ${++counter}` });
    const email = `member${counter}@reports.test`;
    await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    await operator.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId, patch: { enforcementReporting: reporting } });
    const first = await api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: "extension" });
    if (first.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${first.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: `+1555000${6100 + counter}` });
    const { otp } = await api.dev.getOTP({ challengeId });
    const { accessToken } = await api.auth.verifyMFA({ challengeId, otp });
    const blocked = async () => (await storage.stores.audit.list({ orgId, kinds: ["browser.blocked"], limit: 100 })).events;
    return { orgId, accessToken, blocked };
  }

  const at = Date.parse("2026-01-01T00:00:00Z");
  const events = enforcementEventsToWire([
    { kind: "navigation_blocked", rule: "blocked", url: "https://blocked.example/reset/x?token=secret#f", at },
    { kind: "download_blocked", rule: "download", url: "https://files.example/report.pdf", at: at + 1 },
  ]);

  it.runIf(enabled)("host_only records the rule and the host key of each event; full adds the URL without its query; off keeps nothing", async () => {
    const hostOnly = await aMember("host_only");
    expect(await api.browser.reportEnforcementEvents({ orgId: hostOnly.orgId, events }, bearer(hostOnly.accessToken))).toMatchObject({ recorded: 2 });
    expect((await hostOnly.blocked()).map((event) => ({ at: event.at, payload: event.payload }))).toEqual([
      { at: at + 1, payload: { kind: "download_blocked", rule: "download", host: "files.example" } },
      { at, payload: { kind: "navigation_blocked", rule: "blocked", host: "blocked.example" } },
    ]);

    const full = await aMember("full");
    await api.browser.reportEnforcementEvents({ orgId: full.orgId, events }, bearer(full.accessToken));
    expect((await full.blocked()).map((event) => event.payload)).toEqual([
      { kind: "download_blocked", rule: "download", host: "files.example", url: "https://files.example/report.pdf" },
      { kind: "navigation_blocked", rule: "blocked", host: "blocked.example", url: "https://blocked.example/reset/x" },
    ]);

    const off = await aMember("off");
    expect(await api.browser.reportEnforcementEvents({ orgId: off.orgId, events }, bearer(off.accessToken))).toMatchObject({ recorded: 0 });
    expect(await off.blocked()).toEqual([]);
  });

  it.runIf(enabled)(
    "refuses an unknown kind and a batch over 50 as InvalidArgument, a session past its limit as ResourceExhausted, and no bearer",
    async () => {
      const member = await aMember("host_only");
      const call = (batch: typeof events) => api.browser.reportEnforcementEvents({ orgId: member.orgId, events: batch }, bearer(member.accessToken));
      expect((await rpcError(call([{ ...events[0]!, kind: "tab_closed" }]))).code).toBe(Code.InvalidArgument);
      expect((await rpcError(call(Array.from({ length: 51 }, () => events[0]!)))).code).toBe(Code.InvalidArgument);
      expect((await rpcError(api.browser.reportEnforcementEvents({ orgId: member.orgId, events }))).code).toBe(Code.Unauthenticated);
      // The refused batches above were refused before the limit was taken: the session has its 10 a minute.
      for (let i = 0; i < 10; i++) await call(events.slice(0, 1));
      expect((await rpcError(call(events.slice(0, 1)))).code).toBe(Code.ResourceExhausted);
      expect(await member.blocked()).toHaveLength(10);
    },
  );
});
