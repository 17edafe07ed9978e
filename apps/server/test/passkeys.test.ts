/**
 * Issue 35 over the wire, on SQLite and on PostgreSQL, with the real `gatehouse serve`: a passkey
 * registered and used as the second factor, replayed and bent responses refused (origin, RP id, counter,
 * user verification), a passkey sign-in without a password, `require_phishing_resistant` and
 * `passkey_sign_in` enforced. The authenticator is `SoftAuthenticator` (recorded responses built byte by byte).
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { MfaFactor } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { SoftAuthenticator } from "@gatehouse/core/testing";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const ORIGIN = "https://login.example.test";
const WEBAUTHN_ENV = { WEBAUTHN_RP_ID: "example.test", WEBAUTHN_RP_NAME: "Example", WEBAUTHN_ORIGINS: ORIGIN };

const dialects = await wireDialects("the PostgreSQL variant of the passkey tests", "gh_i35");

describe.each(dialects)("passkeys over the wire (%s)", (_name, openDatabase, enabled) => {
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;

  serveOverTheWire(openDatabase, enabled, { env: WEBAUTHN_ENV }, (wire) => {
    ({ storage, operator, api } = wire);
  });

  it.runIf(enabled)("register → second factor → replay, origin, RP id, counter refused → sign-in without a password → org rules", async () => {
    const email = "ada@example.com";
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
    const { userId } = await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    const login = (fingerprint: string) => api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: fingerprint });
    const challengeOn = async (fingerprint: string) => {
      const outcome = await login(fingerprint);
      if (outcome.result.case !== "mfaRequired") throw new Error(`expected MFA, got ${outcome.result.case}`);
      const option = outcome.result.value.factors.find((factor) => factor.kind === "webauthn");
      return { challenge: outcome.result.value, options: option?.webauthnOptionsJson ?? "" };
    };
    const verifyPasskey = (challengeId: string, response: string) =>
      api.auth.verifyMFA({ challengeId, factor: MfaFactor.WEBAUTHN, webauthnResponseJson: response });

    // The first sign-in collects the phone; then a passkey is registered.
    const first = await login("laptop");
    if (first.result.case !== "phoneRequired") throw new Error("expected a phone intent");
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: "+15551234567" });
    const session = bearer((await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp })).accessToken);
    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    const registration = await api.account.startPasskeyRegistration({ label: "Laptop" }, session);
    expect(JSON.parse(registration.webauthnOptionsJson)).toMatchObject({ rp: { id: "example.test", name: "Example" }, attestation: "none" });
    const { factorId } = await api.account.finishPasskeyRegistration(
      { registrationId: registration.registrationId, webauthnResponseJson: authenticator.register(registration.webauthnOptionsJson) },
      session,
    );
    const listed = await api.account.listFactors({}, session);
    expect(listed.factors.map((factor) => [factor.id, factor.kind, factor.label])).toEqual([[factorId, "webauthn", "Laptop"]]);

    // A new device: the passkey is offered first, with its request options, and signs in as the second factor.
    const tablet = await challengeOn("tablet");
    expect(tablet.challenge.factors.map((factor) => factor.kind)).toEqual(["webauthn", "sms"]);
    const answer = authenticator.authenticate(tablet.options);
    const tokens = await verifyPasskey(tablet.challenge.challengeId, answer);
    expect([tokens.amr, tokens.aal, tokens.passkeyEnrollmentRequired]).toEqual([["pwd", "webauthn"], 2, false]);
    expect((await rpcError(verifyPasskey(tablet.challenge.challengeId, answer))).code).toBe(Code.Unauthenticated);

    // Another origin, another RP id, a counter that goes backwards: each answered as a wrong code.
    const wrongCode = await rpcError(
      api.auth.verifyMFA({ challengeId: (await challengeOn("phone")).challenge.challengeId, otp: "000000", factor: MfaFactor.SMS }),
    );
    for (const bend of [{ origin: "https://evil.example" }, { rpId: "evil.example" }, { counter: authenticator.counter }]) {
      const { challenge, options } = await challengeOn("desktop");
      const refused = await rpcError(verifyPasskey(challenge.challengeId, authenticator.authenticate(options, bend)));
      expect([refused.code, refused.rawMessage, errorFactsOf(refused).kind]).toEqual([wrongCode.code, wrongCode.rawMessage, errorFactsOf(wrongCode).kind]);
    }
    const regressions = await storage.stores.audit.list({ limit: 10, kinds: ["passkey.counter_regressed"] });
    expect(regressions.events.map((event) => event.userId)).toEqual([userId]);

    // A sign-in without a password: discoverable, user verification required; AAL2 on its own.
    const start = await api.auth.startPasskeySignIn({ orgId });
    expect(JSON.parse(start.webauthnOptionsJson)).toMatchObject({ rpId: "example.test", userVerification: "required" });
    const unverified = await rpcError(
      api.auth.finishPasskeySignIn({
        challengeId: start.challengeId,
        webauthnResponseJson: authenticator.authenticate(start.webauthnOptionsJson, { userVerified: false }),
      }),
    );
    expect(unverified.code).toBe(Code.Unauthenticated);
    const again = await api.auth.startPasskeySignIn({ orgId });
    const signedIn = await api.auth.finishPasskeySignIn({
      challengeId: again.challengeId,
      webauthnResponseJson: authenticator.authenticate(again.webauthnOptionsJson),
      deviceFingerprint: "kiosk",
    });
    expect([signedIn.tokens?.userId, signedIn.tokens?.amr, signedIn.tokens?.aal]).toEqual([userId, ["webauthn"], 2]);

    // The org says: passkeys only for those who hold one; and no passkey sign-in.
    await operator.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId, patch: { requirePhishingResistant: true, passkeySignIn: false } });
    const strict = await challengeOn("strict");
    expect(strict.challenge.factors.map((factor) => factor.kind)).toEqual(["webauthn"]);
    expect((await rpcError(api.auth.sendMfaCode({ challengeId: strict.challenge.challengeId }))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(api.auth.startPasskeySignIn({ orgId }))).code).toBe(Code.PermissionDenied);
    expect((await verifyPasskey(strict.challenge.challengeId, authenticator.authenticate(strict.options))).amr).toEqual(["pwd", "webauthn"]);
  });
});
