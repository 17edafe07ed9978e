/**
 * Issue 51's risk engine at sign-in, over the wire on SQLite and PostgreSQL: the real `gatehouse serve`, each
 * client naming its address through X-Forwarded-For (TRUST_PROXY=1). With the default country data 8.8.8.8
 * is in the US and 193.0.0.1 in the Netherlands.
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { DEFAULT_RISK_POLICY, riskPolicyFromJson, SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { wireDialects } from "./support/wire-databases.ts";
import type { ServerProcess } from "./support/server-process.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const US = "8.8.8.8";
const NL = "193.0.0.1";

const dialects = await wireDialects("the PostgreSQL variant of the risk sign-in tests", "gh_i51b");

describe.each(dialects)("the risk engine judges each sign-in, over the wire (%s)", (name, openDatabase, enabled) => {
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let server: ServerProcess;
  let counter = 0;

  serveOverTheWire(openDatabase, enabled, { env: { TRUST_PROXY: "1", REFUSAL_PAUSE_MS: "0" } }, (wire) => {
    ({ storage, operator, api, server } = wire);
  });

  const from = (clientIp: string) => ({ headers: { "x-forwarded-for": clientIp } });

  /** A member of an org of its own under `policy` (a JSON patch of the default), whose laptop signed in from the US through the second factor: a trusted device. */
  async function aTrustedMember(policy: Record<string, unknown>, role: "member" | "admin" = "member") {
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Risk ${name} ${++counter}` });
    const email = `owner${counter}@risk.test`;
    await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role });
    const login = (clientIp: string, rttMs = 0) => api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: "laptop", rttMs }, from(clientIp));
    const first = await login(US);
    if (first.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${first.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: `+1555000${5100 + counter}` }, from(US));
    const { otp } = await api.dev.getOTP({ challengeId });
    const session = await api.auth.verifyMFA({ challengeId, otp }, from(US));
    await storage.stores.risk.putPolicy(orgId, riskPolicyFromJson(policy));
    const user = await storage.stores.users.findByEmail(email);
    return { orgId, userId: user!.id, login, session };
  }

  // One earlier sign-in makes a new country worth log10(2) ≈ 0.3 (docs/risk.md): the org's threshold is set below it.
  const LOW_THRESHOLD = { thresholds: { mfa: 0.25 } };

  it.runIf(enabled)("in enforce, a sign-in from a new country asks for the second factor on a trusted device; from home it does not", async () => {
    const member = await aTrustedMember({ ...LOW_THRESHOLD, mode: "enforce" });
    expect((await member.login(US)).result.case).toBe("tokens");
    expect((await member.login(NL)).result.case).toBe("mfaRequired");
    const [latest] = await storage.stores.risk.listEvents({ orgId: member.orgId, userId: member.userId, limit: 1 });
    expect(latest).toMatchObject({ mode: "enforce", decision: "mfa", applied: "mfa", observation: { ip: NL, country: "NL" }, previous: { country: "US" } });
    expect(latest!.signals.find((signal) => signal.signal === "country")).toMatchObject({ value: "NL", code: "new_country", userSeen: 0, userTotal: 2 });
  });

  it.runIf(enabled)("in audit, the same sign-in gets its session, and the decision is stored with every signal", async () => {
    const member = await aTrustedMember({ ...LOW_THRESHOLD, mode: "audit" });
    expect((await member.login(NL, 42)).result.case).toBe("tokens");
    const [latest] = await storage.stores.risk.listEvents({ orgId: member.orgId, userId: member.userId, limit: 1 });
    expect(latest).toMatchObject({ mode: "audit", decision: "mfa", applied: "allow", observation: { rttMs: 42 } });
    expect(latest!.signals.map((signal) => signal.signal)).toEqual(["country", "asn", "ip", "device_type", "os", "browser", "user_agent", "rtt"]);
    // Learnt once the session was issued: the next sign-in from there is no longer new.
    const history = await storage.stores.risk.history(member.userId, 0, 10);
    expect(history.map((row) => row.country)).toEqual(["US", "NL"]);
  });

  it.runIf(enabled)("a country outside allowed_countries answers risk_blocked (never a 500), recorded, and nothing learnt", async () => {
    const member = await aTrustedMember({ mode: "enforce", allowed_countries: ["US"] });
    const refused = await rpcError(member.login(NL));
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(errorFactsOf(refused).kind).toBe("risk_blocked");
    const [latest] = await storage.stores.risk.listEvents({ orgId: member.orgId, userId: member.userId, limit: 1 });
    expect(latest).toMatchObject({ decision: "block", applied: "block", rules: [{ code: "country_not_allowed", decision: "block" }] });
    expect((await storage.stores.risk.history(member.userId, 0, 10)).map((row) => row.country)).toEqual(["US"]);
    expect((await member.login(US)).result.case).toBe("tokens");
  });

  it.runIf(enabled)("an org that never set a policy is judged in audit: the event is stored, nothing changes", async () => {
    expect(DEFAULT_RISK_POLICY.mode).toBe("audit");
    const member = await aTrustedMember({});
    expect((await member.login(NL)).result.case).toBe("tokens");
    // One at the first sign-in (which asked for the phone), one now.
    expect(await storage.stores.risk.listEvents({ orgId: member.orgId, userId: member.userId, limit: 5 })).toHaveLength(2);
  });

  it.runIf(enabled)("AdminService: UpdateOrgRiskPolicy patches and validates the policy; ListRiskEvents reads the decisions", async () => {
    const admin = await aTrustedMember({}, "admin");
    const asAdmin = bearer(admin.session.accessToken);
    const updated = await api.admin.updateOrgRiskPolicy({ orgId: admin.orgId, policyJson: '{"mode": "enforce", "allowed_countries": ["US"]}' }, asAdmin);
    expect(JSON.parse(updated.policyJson)).toMatchObject({ mode: "enforce", allowed_countries: ["US"], thresholds: { mfa: 2 } });
    const refused = await rpcError(api.admin.updateOrgRiskPolicy({ orgId: admin.orgId, policyJson: '{"mode": "loud"}' }, asAdmin));
    expect([refused.code, errorFactsOf(refused).kind]).toEqual([Code.InvalidArgument, "invalid_argument"]);
    expect(errorFactsOf(await rpcError(admin.login(NL))).kind).toBe("risk_blocked");
    const { eventsJson } = await api.admin.listRiskEvents({ orgId: admin.orgId, userId: admin.userId, limit: 10 }, asAdmin);
    const events = eventsJson.map((each) => JSON.parse(each) as { decision: string; signals: unknown[]; sign_in: { country: string } });
    expect(events.map((event) => [event.decision, event.sign_in.country])).toEqual([
      ["block", "NL"],
      ["allow", "US"],
    ]);
    expect(events[0]!.signals).toHaveLength(8);
  });

  it.runIf(enabled)("in enforce, a refresh token used from a new country asks for the step-up: the session is revoked", async () => {
    const member = await aTrustedMember({ ...LOW_THRESHOLD, mode: "enforce" });
    const home = await api.auth.refresh({ refreshToken: member.session.refreshToken, deviceFingerprint: "laptop" }, from(US));
    if (home.result.case !== "tokens") throw new Error(`expected tokens, got ${home.result.case}`);
    const abroad = await api.auth.refresh({ refreshToken: home.result.value.refreshToken, deviceFingerprint: "laptop" }, from(NL));
    expect(abroad.result.case).toBe("mfaRequired");
    const [latest] = await storage.stores.risk.listEvents({ orgId: member.orgId, userId: member.userId, limit: 1 });
    expect(latest).toMatchObject({ applied: "mfa", observation: { country: "NL" }, previous: { country: "US" } });
    expect((await rpcError(api.account.listFactors({}, bearer(home.result.value.accessToken)))).code).toBe(Code.Unauthenticated);
  });

  it.runIf(enabled)(
    "AccountService: ListRecentSignIns shows the owner's sign-ins; AnswerSignIn records mine, and not mine evicts and mails a reset",
    async () => {
      const member = await aTrustedMember({});
      const again = await member.login(NL);
      if (again.result.case !== "tokens") throw new Error(`expected tokens, got ${again.result.case}`);
      const asOwner = bearer(again.result.value.accessToken);
      const { signIns } = await api.account.listRecentSignIns({ limit: 0 }, asOwner);
      expect(signIns.map((signIn) => [signIn.country, signIn.decision, signIn.answer])).toEqual([
        ["NL", "allow", ""],
        ["US", "allow", ""],
      ]);
      await api.account.answerSignIn({ eventId: signIns[1]!.eventId, mine: true }, asOwner);
      expect((await api.account.listRecentSignIns({ limit: 2 }, asOwner)).signIns.map((signIn) => signIn.answer)).toEqual(["", "false_positive"]);
      const missing = await rpcError(api.account.answerSignIn({ eventId: "00000000-0000-4000-8000-000000000000", mine: false }, asOwner));
      expect(missing.code).toBe(Code.NotFound);

      await api.account.answerSignIn({ eventId: signIns[0]!.eventId, mine: false }, asOwner);
      expect((await rpcError(api.account.listFactors({}, asOwner))).code).toBe(Code.Unauthenticated);
      const refreshed = await rpcError(api.auth.refresh({ refreshToken: member.session.refreshToken, deviceFingerprint: "laptop" }, from(US)));
      expect(refreshed.code).toBe(Code.Unauthenticated);
      // The laptop is no longer trusted: its password alone asks for the second factor again.
      expect((await member.login(US)).result.case).not.toBe("tokens");
      const [disowned] = await storage.stores.risk
        .listEvents({ orgId: member.orgId, userId: member.userId, limit: 3 })
        .then((all) => all.filter((event) => event.id === signIns[0]!.eventId));
      expect(disowned?.answer?.kind).toBe("true_positive");
      const email = (await storage.stores.users.findById(member.userId))!.email;
      const mail = async () => (await (await fetch(`${server.url}/api/dev/mail?to=${encodeURIComponent(email)}`)).json()) as { messages: { link: string }[] };
      await expect.poll(async () => (await mail()).messages.some((message) => message.link.includes("/reset-password#token="))).toBe(true);
    },
  );
});
