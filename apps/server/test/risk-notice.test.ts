/**
 * The new-location email over the wire, delivered to a real SMTP server: its "This wasn't me" link, redeemed
 * through AuthService.DisownSignIn with no session, evicts once; a reused or forged link is refused alike.
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { riskPolicyFromJson, SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import type { SmtpCatcher } from "./support/smtp-catcher.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const US = "8.8.8.8";
const NL = "193.0.0.1";
const NOTICE_LINK = /https?:\/\/[^\s]+\/disown-sign-in#token=([\w-]+)&event=([\w-]+)/;

const dialects = await wireDialects("the PostgreSQL variant of the sign-in notice tests", "gh_s3_51b");

describe.each(dialects)("the new-location email and its link, over the wire (%s)", (name, openDatabase, enabled) => {
  let smtp: SmtpCatcher;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;

  serveOverTheWire(openDatabase, enabled, { env: { TRUST_PROXY: "1", REFUSAL_PAUSE_MS: "0" }, smtp: true }, (wire) => {
    ({ smtp, storage, operator, api } = wire);
  });

  const from = (clientIp: string) => ({ headers: { "x-forwarded-for": clientIp } });

  it.runIf(enabled)("a sign-in from a new country mails the owner; the link evicts without a session, once", async () => {
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Notice ${name}` });
    const email = `notice@${name.toLowerCase()}.test`;
    await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    const login = (clientIp: string) => api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: "laptop" }, from(clientIp));
    const first = await login(US);
    if (first.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${first.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: "+15550005199" }, from(US));
    const home = await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp }, from(US));
    await storage.stores.risk.putPolicy(orgId, riskPolicyFromJson({ mode: "audit", notify_new_location: true }));
    // Home again: nothing new, no mail.
    expect((await login(US)).result.case).toBe("tokens");

    const intruder = await login(NL);
    if (intruder.result.case !== "tokens") throw new Error(`expected tokens, got ${intruder.result.case}`);
    await expect.poll(() => smtp.to(email).filter((mail) => NOTICE_LINK.test(mail.data)).length).toBe(1);
    const notice = smtp.to(email).find((mail) => NOTICE_LINK.test(mail.data))!;
    expect(notice.data).toContain("New sign-in to your account");
    expect(notice.data).toContain("Where (approximately): NL");
    const [, token, eventId] = NOTICE_LINK.exec(notice.data)!;

    const forged = await rpcError(api.auth.disownSignIn({ token: `${token!.slice(0, -2)}xy`, eventId }));
    expect([forged.code, errorFactsOf(forged).kind]).toEqual([Code.Unauthenticated, "invalid_link"]);
    await api.auth.disownSignIn({ token, eventId });
    const reused = await rpcError(api.auth.disownSignIn({ token, eventId }));
    expect([reused.code, errorFactsOf(reused).kind]).toEqual([Code.Unauthenticated, "invalid_link"]);

    for (const session of [intruder.result.value, home]) {
      expect((await rpcError(api.account.listFactors({}, bearer(session.accessToken)))).code).toBe(Code.Unauthenticated);
    }
    const refreshed = await rpcError(api.auth.refresh({ refreshToken: home.refreshToken, deviceFingerprint: "laptop" }, from(US)));
    expect(refreshed.code).toBe(Code.Unauthenticated);
    expect((await login(US)).result.case).not.toBe("tokens");
    const user = (await storage.stores.users.findByEmail(email))!;
    const [disowned] = (await storage.stores.risk.listEvents({ orgId, userId: user.id, limit: 10 })).filter((event) => event.id === eventId);
    expect(disowned?.answer?.kind).toBe("true_positive");
    expect(await smtp.tokenFor(email, "reset-password")).not.toBe("");
  });
});
