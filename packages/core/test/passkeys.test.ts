import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../src/records/audit-events.ts";
import { GatehouseError } from "../src/errors.ts";
import { counterMovedForward } from "../src/factors/passkeys/webauthn.ts";
import type { MfaRequired } from "../src/results.ts";
import { SoftAuthenticator, type CeremonyBending } from "../src/testing/index.ts";
import type { Actor } from "../src/authorization/actor.ts";
import { createHarness, signInWithPhone, type Harness } from "./harness.ts";

const SYSTEM: Actor = { kind: "system" };
const ORIGIN = "http://localhost:8080";

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) =>
      error instanceof GatehouseError ? `${error.kind}${error.details.field === undefined ? "" : `:${error.details.field}`}` : String(error),
  );
}

async function events(h: Harness, kind: AuditEvent["kind"]): Promise<AuditEvent[]> {
  return (await h.stores.audit.list({ limit: 1000, kinds: [kind] })).events;
}

/** Signs in with SMS on the laptop and registers a passkey there. */
async function withPasskey(h: Harness, authenticator = new SoftAuthenticator({ origin: ORIGIN })) {
  const tokens = await signInWithPhone(h, "laptop");
  const principal = await h.gatehouse.authenticate(tokens.accessToken);
  const { registrationId, webauthnOptionsJson } = await h.gatehouse.account.startPasskeyRegistration(principal, { label: "Laptop" });
  const options = JSON.parse(webauthnOptionsJson) as { rp: { id: string; name: string }; attestation: string; authenticatorSelection: object };
  expect(options.rp).toEqual({ id: "localhost", name: "Gatehouse" });
  expect(options.attestation).toBe("none");
  const factorId = await h.gatehouse.account.finishPasskeyRegistration(principal, {
    registrationId,
    responseJson: authenticator.register(webauthnOptionsJson),
  });
  return { authenticator, factorId, principal };
}

async function passkeyChallenge(h: Harness, fingerprint: string): Promise<{ challenge: MfaRequired; options: string }> {
  const outcome = await h.login(fingerprint);
  if (outcome.kind !== "mfa_required") throw new Error(`expected MFA, got ${outcome.kind}`);
  const option = outcome.challenge.factors.find((factor) => factor.kind === "webauthn");
  if (option?.webauthnOptionsJson === undefined) throw new Error("no passkey option");
  return { challenge: outcome.challenge, options: option.webauthnOptionsJson };
}

const verifyWith = (h: Harness, challengeId: string, response: string) =>
  h.gatehouse.verifyMfa({ challengeId, otp: "", factor: "webauthn", webauthnResponseJson: response });

describe("passkeys as a second factor", () => {
  it("registers a passkey, offers it first with request options, and verifies its assertion", async () => {
    const h = await createHarness();
    const { authenticator, factorId } = await withPasskey(h);
    const view = await h.gatehouse.account.listFactors(await h.gatehouse.authenticate((await signInWithPhone(h, "laptop")).accessToken));
    expect(view.factors).toEqual([expect.objectContaining({ id: factorId, kind: "webauthn", label: "Laptop" })]);
    expect((await events(h, "factor.enrolled"))[0]?.payload).toEqual({ factorId, kind: "webauthn" });

    const { challenge, options } = await passkeyChallenge(h, "tablet");
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["webauthn", "sms"]);
    const request = JSON.parse(options) as { rpId: string; allowCredentials: { id: string }[]; userVerification: string };
    expect(request).toMatchObject({ rpId: "localhost", allowCredentials: [{ id: authenticator.credentialId }], userVerification: "preferred" });
    const tokens = await verifyWith(h, challenge.challengeId, authenticator.authenticate(options));
    expect([tokens.amr, tokens.aal]).toEqual([["pwd", "webauthn"], 2]);
    expect((await events(h, "mfa.verified")).map((event) => event.payload)).toContainEqual(expect.objectContaining({ factor: "webauthn" }));
  });

  const refusals: [string, CeremonyBending][] = [
    ["another origin", { origin: "https://evil.example" }],
    ["another RP id", { rpId: "evil.example" }],
    ["another challenge", { challenge: Buffer.alloc(32, 7).toString("base64url") }],
  ];
  for (const [name, bend] of refusals) {
    it(`refuses an assertion for ${name} as a wrong code, and the WebAuthn challenge is used up`, async () => {
      const h = await createHarness();
      const { authenticator } = await withPasskey(h);
      const { challenge, options } = await passkeyChallenge(h, "tablet");
      expect(await kindOf(verifyWith(h, challenge.challengeId, authenticator.authenticate(options, bend)))).toBe("invalid_otp");
      // The right answer now finds the WebAuthn challenge consumed by the wrong one.
      expect(await kindOf(verifyWith(h, challenge.challengeId, authenticator.authenticate(options)))).toBe("invalid_otp");
    });
  }

  it("refuses a replayed assertion, and of concurrent ones exactly one passes", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    const { challenge, options } = await passkeyChallenge(h, "tablet");
    const answer = authenticator.authenticate(options);
    const outcomes = await Promise.all([1, 2, 3].map(() => kindOf(verifyWith(h, challenge.challengeId, answer))));
    expect(outcomes.filter((outcome) => outcome === "resolved")).toHaveLength(1);
    expect(await kindOf(verifyWith(h, challenge.challengeId, answer))).toBe("invalid_mfa_challenge");
  });

  it("refuses a counter that goes backwards and records it; authenticators that always report 0 pass", async () => {
    const h = await createHarness();
    const { authenticator, factorId } = await withPasskey(h);
    const first = await passkeyChallenge(h, "tablet");
    await verifyWith(h, first.challenge.challengeId, authenticator.authenticate(first.options, { counter: 5 }));
    const clone = await passkeyChallenge(h, "phone");
    expect(await kindOf(verifyWith(h, clone.challenge.challengeId, authenticator.authenticate(clone.options, { counter: 5 })))).toBe("invalid_otp");
    expect((await events(h, "passkey.counter_regressed"))[0]?.payload).toEqual({ factorId, storedCounter: 5, receivedCounter: 5 });

    const other = await createHarness();
    const counterless = new SoftAuthenticator({ origin: ORIGIN, noCounter: true });
    await withPasskey(other, counterless);
    for (const device of ["tablet", "phone"]) {
      const { challenge, options } = await passkeyChallenge(other, device);
      expect((await verifyWith(other, challenge.challengeId, counterless.authenticate(options))).aal).toBe(2);
    }
  });

  it("answers a passkey of another user, or none held, as a wrong code", async () => {
    const h = await createHarness();
    await withPasskey(h);
    const { challenge, options } = await passkeyChallenge(h, "tablet");
    const stranger = new SoftAuthenticator({ origin: ORIGIN });
    expect(await kindOf(verifyWith(h, challenge.challengeId, stranger.authenticate(options)))).toBe("invalid_otp");
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: "", factor: "webauthn" }))).toBe(
      "invalid_argument:webauthn_response_json",
    );
  });

  it("as a second factor takes presence without user verification (the password was the other factor)", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    const { challenge, options } = await passkeyChallenge(h, "tablet");
    expect((await verifyWith(h, challenge.challengeId, authenticator.authenticate(options, { userVerified: false }))).aal).toBe(2);
  });

  it("steps up a session with the passkey", async () => {
    const h = await createHarness();
    const { authenticator, principal } = await withPasskey(h);
    h.clock.advance(60 * 60_000);
    const challenge = await h.gatehouse.account.startStepUp(principal);
    const options = challenge.factors.find((factor) => factor.kind === "webauthn")?.webauthnOptionsJson ?? "";
    const tokens = await verifyWith(h, challenge.challengeId, authenticator.authenticate(options));
    const stepped = await h.gatehouse.authenticate(tokens.accessToken);
    expect([stepped.sessionId, stepped.amr, stepped.mfaAt]).toEqual([principal.sessionId, ["pwd", "webauthn"], h.clock.now()]);
  });

  it("is removed by an admin's factor reset, with its pending ceremonies", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    const { challenge } = await passkeyChallenge(h, "tablet");
    await h.gatehouse.admin.resetUserFactors(SYSTEM, { orgId: h.orgId, userId: h.userId, reason: "lost laptop, identity checked" });
    expect(await h.stores.passkeys.list(h.userId)).toEqual([]);
    expect(await h.stores.webauthnChallenges.consume(challenge.challengeId, "authenticate", h.clock.now())).toBeNull();
    const { challengeId, webauthnOptionsJson } = await h.gatehouse.startPasskeySignIn({ orgId: h.orgId });
    expect(await kindOf(h.gatehouse.finishPasskeySignIn({ challengeId, webauthnResponseJson: authenticator.authenticate(webauthnOptionsJson) }))).toBe(
      "invalid_credentials",
    );
  });

  it("keeps the counter rule: forward, or 0 twice", () => {
    const cases: [number, number, boolean][] = [
      [0, 0, true],
      [0, 1, true],
      [4, 5, true],
      [5, 5, false],
      [5, 4, false],
      [5, 0, false],
    ];
    for (const [stored, received, moved] of cases) expect(counterMovedForward(stored, received)).toBe(moved);
  });

  it("removes a passkey with a step-up, and keeps the last factor the org accepts", async () => {
    const h = await createHarness();
    const { factorId, principal } = await withPasskey(h);
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { allowedFactors: ["webauthn"] } });
    expect(await kindOf(h.gatehouse.account.removeFactor(principal, { factorId }))).toBe("permission_denied");
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { allowedFactors: ["webauthn", "sms"] } });
    await h.gatehouse.account.removeFactor(principal, { factorId });
    expect((await h.gatehouse.account.listFactors(principal)).factors).toEqual([]);
    expect((await events(h, "factor.removed"))[0]?.payload).toEqual({ factorId, kind: "webauthn" });
  });

  it("refuses a registration for another origin or a replayed one", async () => {
    const h = await createHarness();
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h, "laptop")).accessToken);
    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    const wrong = await h.gatehouse.account.startPasskeyRegistration(principal, { label: "" });
    expect(
      await kindOf(
        h.gatehouse.account.finishPasskeyRegistration(principal, {
          registrationId: wrong.registrationId,
          responseJson: authenticator.register(wrong.webauthnOptionsJson, { origin: "http://127.0.0.1:8080" }),
        }),
      ),
    ).toBe("invalid_argument:webauthn_response_json");
    const right = await h.gatehouse.account.startPasskeyRegistration(principal, { label: "" });
    const answer = authenticator.register(right.webauthnOptionsJson);
    await h.gatehouse.account.finishPasskeyRegistration(principal, { registrationId: right.registrationId, responseJson: answer });
    expect(await kindOf(h.gatehouse.account.finishPasskeyRegistration(principal, { registrationId: right.registrationId, responseJson: answer }))).toBe(
      "not_found",
    );
    expect((await h.gatehouse.account.listFactors(principal)).factors.map((factor) => factor.label)).toEqual(["Passkey"]);
  });
});

describe("require_phishing_resistant", () => {
  it("refuses SMS, TOTP and recovery codes from a user with a passkey", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requirePhishingResistant: true } });
    const { challenge, options } = await passkeyChallenge(h, "tablet");
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["webauthn"]);
    expect(await kindOf(h.gatehouse.sendMfaCode({ challengeId: challenge.challengeId }))).toBe("invalid_mfa_challenge");
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: "123456", factor: "totp" }))).toBe("invalid_otp");
    const tokens = await verifyWith(h, challenge.challengeId, authenticator.authenticate(options));
    expect(tokens.passkeyEnrollmentRequired).toBeUndefined();
  });

  it("lets a user without a passkey complete MFA with another factor and asks them to enrol one", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requirePhishingResistant: true } });
    const tokens = await signInWithPhone(h, "tablet");
    expect(tokens.passkeyEnrollmentRequired).toBe(true);
    // The fresh second factor is the step-up the registration needs.
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    const { webauthnOptionsJson } = await h.gatehouse.account.startPasskeyRegistration(principal, { label: "Tablet" });
    expect(JSON.parse(webauthnOptionsJson)).toMatchObject({ rp: { id: "localhost" } });
  });

  it("is refused without webauthn among the allowed factors", async () => {
    const h = await createHarness();
    const update = h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, {
      orgId: h.orgId,
      patch: { requirePhishingResistant: true, allowedFactors: ["sms", "totp"] },
    });
    expect(await kindOf(update)).toBe("invalid_argument:require_phishing_resistant");
  });
});

describe("passkey sign-in without a password", () => {
  async function signInWithPasskey(h: Harness, authenticator: SoftAuthenticator, bend: CeremonyBending = {}, fingerprint = "kiosk") {
    const { challengeId, webauthnOptionsJson } = await h.gatehouse.startPasskeySignIn({ orgId: h.orgId, request: { clientIp: "192.0.2.1" } });
    return h.gatehouse.finishPasskeySignIn({
      challengeId,
      webauthnResponseJson: authenticator.authenticate(webauthnOptionsJson, bend),
      deviceFingerprint: fingerprint,
    });
  }

  it("signs in with a user-verified discoverable passkey: AAL2, amr webauthn, the device trusted", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    const { webauthnOptionsJson } = await h.gatehouse.startPasskeySignIn({ orgId: h.orgId });
    expect(JSON.parse(webauthnOptionsJson)).toMatchObject({ rpId: "localhost", userVerification: "required" });
    expect(JSON.parse(webauthnOptionsJson)).not.toHaveProperty("allowCredentials");
    const tokens = await signInWithPasskey(h, authenticator);
    expect([tokens.userId, tokens.amr, tokens.aal]).toEqual([h.userId, ["webauthn"], 2]);
    expect((await events(h, "device.trusted")).length).toBeGreaterThan(1);
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    await h.gatehouse.account.requireStepUp(principal);
  });

  it("is judged by the org's risk policy: audit records it, a block in enforce refuses it (risk_blocked) and records why", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    expect((await signInWithPasskey(h, authenticator)).userId).toBe(h.userId);
    const [audited] = await h.stores.risk.listEvents({ orgId: h.orgId, userId: h.userId, limit: 1 });
    expect(audited).toMatchObject({ mode: "audit", applied: "allow" });
    // With no IP data the country is unknown, which a geo-fence refuses.
    await h.gatehouse.admin.updateOrgRiskPolicy(SYSTEM, { orgId: h.orgId, patch: { mode: "enforce", allowed_countries: ["US"] } });
    expect(await kindOf(signInWithPasskey(h, authenticator))).toBe("risk_blocked");
    const [blocked] = await h.stores.risk.listEvents({ orgId: h.orgId, userId: h.userId, limit: 1 });
    expect(blocked).toMatchObject({ decision: "block", applied: "block", rules: [{ code: "country_not_allowed" }] });
    expect((await events(h, "sign_in.failed")).map((event) => event.payload)).toContainEqual({ reason: "risk_blocked" });
  });

  it("reads the account's password failures into its risk event, and leaves them as they were", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    for (let i = 0; i < 5; i++) expect(await kindOf(h.login("laptop", "ada@example.com", "wrong password"))).toBe("invalid_credentials");
    for (let i = 0; i < 2; i++) {
      expect((await signInWithPasskey(h, authenticator)).userId).toBe(h.userId);
      const [judged] = await h.stores.risk.listEvents({ orgId: h.orgId, userId: h.userId, limit: 1 });
      expect(judged?.rules).toEqual([{ code: "account_failure_velocity", decision: "mfa", detail: "5 failed sign-ins to this account in the last hour" }]);
    }
  });

  it("refuses a passkey without user verification, another origin, a replayed challenge and an unknown passkey", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    expect(await kindOf(signInWithPasskey(h, authenticator, { userVerified: false }))).toBe("invalid_credentials");
    expect(await kindOf(signInWithPasskey(h, authenticator, { origin: "https://evil.example" }))).toBe("invalid_credentials");
    expect(await kindOf(signInWithPasskey(h, new SoftAuthenticator({ origin: ORIGIN })))).toBe("invalid_credentials");
    const { challengeId, webauthnOptionsJson } = await h.gatehouse.startPasskeySignIn({ orgId: h.orgId });
    const answer = authenticator.authenticate(webauthnOptionsJson);
    await h.gatehouse.finishPasskeySignIn({ challengeId, webauthnResponseJson: answer });
    expect(await kindOf(h.gatehouse.finishPasskeySignIn({ challengeId, webauthnResponseJson: answer }))).toBe("invalid_mfa_challenge");
    expect((await events(h, "sign_in.failed")).map((event) => event.payload)).toContainEqual({ reason: "passkey_refused" });
  });

  it("follows the org: passkey_sign_in off refuses, and a non-member is refused", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { passkeySignIn: false } });
    expect(await kindOf(h.gatehouse.startPasskeySignIn({ orgId: h.orgId }))).toBe("permission_denied");
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { passkeySignIn: true } });
    const { orgId: otherOrg } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    const { challengeId, webauthnOptionsJson } = await h.gatehouse.startPasskeySignIn({ orgId: otherOrg });
    const refused = h.gatehouse.finishPasskeySignIn({ challengeId, webauthnResponseJson: authenticator.authenticate(webauthnOptionsJson) });
    expect(await kindOf(refused)).toBe("not_org_member");
  });

  it("a forged answer naming the owner's passkey spends none of the owner's budget: nobody can lock them out with its id", async () => {
    const h = await createHarness();
    const { authenticator } = await withPasskey(h);
    // The credential id is no secret: every MFA challenge of the owner lists it. The forger signs with a key of their own.
    const forger = new SoftAuthenticator({ origin: ORIGIN });
    for (let i = 0; i < 12; i++) {
      const { challengeId, webauthnOptionsJson } = await h.gatehouse.startPasskeySignIn({ orgId: h.orgId });
      const forged = { ...(JSON.parse(forger.authenticate(webauthnOptionsJson)) as object), id: authenticator.credentialId, rawId: authenticator.credentialId };
      expect(await kindOf(h.gatehouse.finishPasskeySignIn({ challengeId, webauthnResponseJson: JSON.stringify(forged) }))).toBe("invalid_credentials");
    }
    expect((await signInWithPasskey(h, authenticator)).userId).toBe(h.userId);
    const { challenge, options } = await passkeyChallenge(h, "new-tablet");
    expect((await verifyWith(h, challenge.challengeId, authenticator.authenticate(options))).aal).toBe(2);
  });

  it("limits challenges per client", async () => {
    const h = await createHarness({ passkeySignInsPerClient: { limit: 2, windowMs: 60_000 } });
    const start = () => kindOf(h.gatehouse.startPasskeySignIn({ orgId: h.orgId, request: { clientIp: "192.0.2.9" } }));
    expect([await start(), await start(), await start()]).toEqual(["resolved", "resolved", "rate_limited"]);
    // An embedder's own calls name no client and are not limited here.
    const own = () => kindOf(h.gatehouse.startPasskeySignIn({ orgId: h.orgId }));
    expect([await own(), await own(), await own()]).toEqual(["resolved", "resolved", "resolved"]);
  });
});
