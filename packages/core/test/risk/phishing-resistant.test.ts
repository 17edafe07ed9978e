/** A risk decision of `phishing_resistant`: a passkey, and nothing else, completes the sign-in of a user who holds one. */
import { describe, expect, it } from "vitest";
import type { Actor } from "../../src/authorization/actor.ts";
import { GatehouseError } from "../../src/errors.ts";
import type { MfaRequired } from "../../src/results.ts";
import { SoftAuthenticator } from "../../src/testing/index.ts";
import { createHarness, signInWithPhone, type Harness } from "../harness.ts";

const SYSTEM: Actor = { kind: "system" };
const ORIGIN = "http://localhost:8080";
// Every score is at least 0: each sign-in is judged at these thresholds, whatever the history.
const ASK_PASSKEY = { mode: "enforce", thresholds: { mfa: 0, phishing_resistant: 0 } };
const ASK_MFA = { mode: "enforce", thresholds: { mfa: 0 } };

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

/** The laptop trusted through SMS; with a passkey registered there when `passkey`. */
async function setUp(passkey: boolean) {
  const h = await createHarness();
  const authenticator = new SoftAuthenticator({ origin: ORIGIN });
  const principal = await h.gatehouse.authenticate((await signInWithPhone(h, "laptop")).accessToken);
  if (passkey) {
    const { registrationId, webauthnOptionsJson } = await h.gatehouse.account.startPasskeyRegistration(principal, { label: "Laptop" });
    await h.gatehouse.account.finishPasskeyRegistration(principal, { registrationId, responseJson: authenticator.register(webauthnOptionsJson) });
  }
  return { h, authenticator };
}

async function challenged(h: Harness, policy: object): Promise<MfaRequired> {
  await h.gatehouse.admin.updateOrgRiskPolicy(SYSTEM, { orgId: h.orgId, patch: policy });
  const outcome = await h.login("laptop");
  if (outcome.kind !== "mfa_required") throw new Error(`expected MFA, got ${outcome.kind}`);
  return outcome.challenge;
}

describe("a phishing_resistant risk decision", () => {
  it("offers a user who holds a passkey that alone, on a trusted device, and the passkey completes it", async () => {
    const { h, authenticator } = await setUp(true);
    const challenge = await challenged(h, ASK_PASSKEY);
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["webauthn"]);
    const options = challenge.factors[0]!.webauthnOptionsJson!;
    const tokens = await h.gatehouse.verifyMfa({
      challengeId: challenge.challengeId,
      otp: "",
      factor: "webauthn",
      webauthnResponseJson: authenticator.authenticate(options),
    });
    expect(tokens.amr).toEqual(["pwd", "webauthn"]);
  });

  it("refuses another factor: no SMS code is sent for the challenge, and a code for it matches nothing", async () => {
    const { h } = await setUp(true);
    const challenge = await challenged(h, ASK_PASSKEY);
    const sent = h.sms.sent.length;
    expect(await kindOf(h.gatehouse.sendMfaCode({ challengeId: challenge.challengeId }))).toBe("invalid_mfa_challenge");
    expect(h.sms.sent.length).toBe(sent);
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: "123456", factor: "sms" }))).toBe("invalid_otp");
  });

  it("is kept by the challenge: the org's own settings, which allow SMS, do not loosen it at VerifyMFA", async () => {
    const { h } = await setUp(true);
    const challenge = await challenged(h, ASK_PASSKEY);
    expect((await h.stores.challenges.findById(challenge.challengeId))?.phishingResistant).toBe(true);
    expect((await h.gatehouse.admin.getOrgMfaSettings(SYSTEM, { orgId: h.orgId })).requirePhishingResistant).toBe(false);
  });

  it("a decision of mfa offers every factor the user holds", async () => {
    const { h } = await setUp(true);
    const challenge = await challenged(h, ASK_MFA);
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["webauthn", "sms"]);
    expect((await h.stores.challenges.findById(challenge.challengeId))?.phishingResistant).toBeUndefined();
  });

  it("a user who holds no passkey completes it with the org's other factors, as under require_phishing_resistant", async () => {
    const { h } = await setUp(false);
    const outcome = await h.gatehouse.admin.updateOrgRiskPolicy(SYSTEM, { orgId: h.orgId, patch: ASK_PASSKEY }).then(() => h.login("laptop"));
    if (outcome.kind !== "mfa_required") throw new Error(outcome.kind);
    const { challengeId } = outcome.challenge;
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! }))).toBe("resolved");
  });
});
