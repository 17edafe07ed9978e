/**
 * Issue 34 over the wire, on SQLite and on PostgreSQL, with the real `gatehouse serve` in dev OTP mode:
 * an authenticator app enrolled and used once per code, a recovery code used once, a factor the org does
 * not allow answered as a wrong code, step-up for admin calls, and the operator's factor reset.
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { MfaFactor } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { SYSTEM_ACTOR, totpCodeAt, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { runCli } from "./support/server-process.ts";
import { wireDialects, type WireDatabase } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const STEP_MS = 30_000;

const dialects = await wireDialects("the PostgreSQL variant of the factor tests", "gh_i34");

describe.each(dialects)("authenticator apps, recovery codes and step-up, over the wire (%s)", (_name, openDatabase, enabled) => {
  let database: WireDatabase;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;

  serveOverTheWire(openDatabase, enabled, {}, (wire) => {
    ({ database, storage, operator, api } = wire);
  });

  it.runIf(enabled)("enrol → sign in with it → replay refused → recovery code once → disallowed factor as a wrong code → step-up → admin call", async () => {
    const email = "ada@example.com";
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
    await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "admin" });
    const login = (fingerprint: string) => api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: fingerprint });
    const challengeOn = async (fingerprint: string) => {
      const outcome = await login(fingerprint);
      if (outcome.result.case !== "mfaRequired") throw new Error(`expected MFA, got ${outcome.result.case}`);
      return outcome.result.value;
    };

    // The first sign-in collects the phone, as the spec says.
    const first = await login("laptop");
    if (first.result.case !== "phoneRequired") throw new Error("expected a phone intent");
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: "+15551234567" });
    const sms = await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp });
    expect([sms.amr, sms.aal]).toEqual([["pwd", "sms"], 2]);
    const session = bearer(sms.accessToken);

    // Enrol an authenticator app and recovery codes.
    const enrollment = await api.account.startTotpEnrollment({ label: "Phone app" }, session);
    expect(enrollment.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    await api.account.confirmTotpEnrollment({ enrollmentId: enrollment.enrollmentId, code: totpCodeAt(enrollment.secret, Date.now()) }, session);
    const { codes } = await api.account.generateRecoveryCodes({}, session);
    expect(codes).toHaveLength(10);
    const factors = await api.account.listFactors({}, session);
    expect([factors.factors.map((factor) => factor.label), factors.recoveryCodesLeft, factors.phoneMask]).toEqual([["Phone app"], 10, "+*******4567"]);

    // A new device: the factors are offered, no SMS is sent, and the app's next code signs in.
    const tablet = await challengeOn("tablet");
    expect(tablet.factors.map((factor) => factor.kind)).toEqual(["totp", "sms", "recovery_code"]);
    expect((await storage.stores.challenges.findById(tablet.challengeId))?.codeHash).toBe("");
    const code = totpCodeAt(enrollment.secret, Date.now() + STEP_MS);
    const totp = await api.auth.verifyMFA({ challengeId: tablet.challengeId, otp: code, factor: MfaFactor.TOTP });
    expect([totp.amr, totp.aal]).toEqual([["pwd", "otp"], 2]);

    // The same code again is refused, exactly as a wrong code is.
    const phone = await challengeOn("phone");
    const replay = await rpcError(api.auth.verifyMFA({ challengeId: phone.challengeId, otp: code, factor: MfaFactor.TOTP }));
    const wrong = await rpcError(api.auth.verifyMFA({ challengeId: phone.challengeId, otp: "000000", factor: MfaFactor.SMS }));
    expect([replay.code, replay.rawMessage, errorFactsOf(replay).kind]).toEqual([wrong.code, wrong.rawMessage, errorFactsOf(wrong).kind]);

    // A recovery code works once.
    const rec = await api.auth.verifyMFA({ challengeId: phone.challengeId, otp: codes[0]!, factor: MfaFactor.RECOVERY_CODE });
    expect(rec.amr).toEqual(["pwd", "rec"]);
    const desktop = await challengeOn("desktop");
    expect((await rpcError(api.auth.verifyMFA({ challengeId: desktop.challengeId, otp: codes[0]!, factor: MfaFactor.RECOVERY_CODE }))).code).toBe(
      Code.Unauthenticated,
    );

    // An org that disallows TOTP answers a right TOTP code like a wrong one.
    await api.admin.updateOrgMfaSettings({ orgId, allowedFactors: { kinds: ["sms", "recovery_code"] } }, session);
    const kiosk = await challengeOn("kiosk");
    expect(kiosk.factors.map((factor) => factor.kind)).toEqual(["sms", "recovery_code"]);
    const disallowed = await rpcError(
      api.auth.verifyMFA({ challengeId: kiosk.challengeId, otp: totpCodeAt(enrollment.secret, Date.now() + STEP_MS), factor: MfaFactor.TOTP }),
    );
    expect([disallowed.code, disallowed.rawMessage, errorFactsOf(disallowed).kind]).toEqual([wrong.code, wrong.rawMessage, errorFactsOf(wrong).kind]);

    // A session that never verified a second factor (a trusted device) must step up for an admin call.
    const trusted = await login("laptop");
    if (trusted.result.case !== "tokens") throw new Error("expected tokens on the trusted device");
    expect([trusted.result.value.amr, trusted.result.value.aal]).toEqual([["pwd"], 1]);
    const stale = bearer(trusted.result.value.accessToken);
    const refused = await rpcError(api.admin.listUserFactors({ orgId, userId: sms.userId }, stale));
    expect([refused.code, refused.rawMessage, errorFactsOf(refused).kind]).toEqual([Code.FailedPrecondition, "step-up required", "step_up_required"]);

    const stepUp = await api.account.startStepUp({}, stale);
    const stepped = await api.auth.verifyMFA({ challengeId: stepUp.mfaRequired!.challengeId, otp: codes[1]!, factor: MfaFactor.RECOVERY_CODE });
    expect([stepped.amr, stepped.aal]).toEqual([["pwd", "rec"], 2]);
    // An org admin sees which kinds of factor the member holds, never their labels, times or phone.
    const listed = await api.admin.listUserFactors({ orgId, userId: sms.userId }, bearer(stepped.accessToken));
    expect([listed.factors.map((factor) => [factor.kind, factor.label]), listed.recoveryCodesLeft, listed.phoneMask]).toEqual([
      [
        ["totp", ""],
        ["sms", ""],
        ["recovery_code", ""],
      ],
      0,
      "",
    ]);
    expect((await api.account.listSessions({}, bearer(stepped.accessToken))).sessions.find((s) => s.current)?.amr).toEqual(["pwd", "rec"]);

    // The operator's way back: factors gone, phone unlocked, every session ended; audited with the reason.
    const env = { DATABASE_URL: database.url };
    expect((await runCli(["factors", "list", email], env)).json).toMatchObject({ recovery_codes_left: 8, phone_mask: "+*******4567" });
    expect((await runCli(["factors", "reset", email, "--reason", "lost phone, identity checked"], env)).json).toEqual({ reset: true });
    expect((await rpcError(api.account.listFactors({}, bearer(stepped.accessToken)))).code).toBe(Code.Unauthenticated);
    expect((await login("laptop")).result.case).toBe("phoneRequired");
    const [reset] = (await storage.stores.audit.list({ limit: 1, kinds: ["factors.reset"] })).events;
    expect(reset?.payload).toEqual({ reason: "lost phone, identity checked", removed: 10 });
  });
});
