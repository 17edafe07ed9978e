import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../src/records/audit-events.ts";
import { GatehouseError } from "../src/errors.ts";
import { totpCodeAt } from "../src/factors/totp/totp.ts";
import type { IssuedTokens } from "../src/results.ts";
import { SoftAuthenticator } from "../src/testing/index.ts";
import type { Actor } from "../src/authorization/actor.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const SYSTEM: Actor = { kind: "system" };
const STEP_MS = 30_000;

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

async function events(h: Harness, kind: AuditEvent["kind"]): Promise<AuditEvent[]> {
  return (await h.stores.audit.list({ limit: 1000, kinds: [kind] })).events;
}

/** Signs in with SMS, enrols an authenticator app and recovery codes; returns the secret and the codes. */
async function enrolled(h: Harness): Promise<{ secret: string; codes: string[]; tokens: IssuedTokens }> {
  const tokens = await signInWithPhone(h, "laptop");
  const principal = await h.gatehouse.authenticate(tokens.accessToken);
  const { enrollmentId, secret, otpauthUri } = await h.gatehouse.account.startTotpEnrollment(principal, { label: "Phone app" });
  expect(otpauthUri).toContain(`secret=${secret}`);
  await h.gatehouse.account.confirmTotpEnrollment(principal, { enrollmentId, code: totpCodeAt(secret, h.clock.now()) });
  const codes = await h.gatehouse.account.generateRecoveryCodes(principal);
  return { secret, codes, tokens };
}

/** A new device's sign-in: the challenge, with no SMS sent. */
async function challengeOnNewDevice(h: Harness, fingerprint: string) {
  const sent = h.sms.sent.length;
  const outcome = await h.login(fingerprint);
  if (outcome.kind !== "mfa_required") throw new Error(`expected MFA, got ${outcome.kind}`);
  expect(h.sms.sent.length).toBe(sent);
  return outcome.challenge;
}

describe("authenticator apps and recovery codes", () => {
  it("lists the user's factors strongest first and sends no SMS until asked", async () => {
    const h = await createHarness();
    await enrolled(h);
    const challenge = await challengeOnNewDevice(h, "tablet");
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["totp", "sms", "recovery_code"]);
    expect(challenge.factors[0]?.label).toBe("Phone app");
    expect(challenge.factors[2]?.label).toBe("10 recovery codes left");

    const sent = await h.gatehouse.sendMfaCode({ challengeId: challenge.challengeId });
    expect(sent.phoneMask).toBe("+*******4567");
    const otp = h.sms.lastOtpFor(challenge.challengeId);
    expect(otp).toBeDefined();
    const tokens = await h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: otp!, factor: "sms" });
    expect([tokens.amr, tokens.aal]).toEqual([["pwd", "sms"], 2]);
  });

  it("signs in with an app's code once: the same code again is refused, concurrently too", async () => {
    const h = await createHarness();
    const { secret } = await enrolled(h);
    h.clock.advance(STEP_MS);
    const code = totpCodeAt(secret, h.clock.now());
    const first = await challengeOnNewDevice(h, "tablet");
    const tokens = await h.gatehouse.verifyMfa({ challengeId: first.challengeId, otp: code, factor: "totp" });
    expect([tokens.amr, tokens.aal]).toEqual([["pwd", "otp"], 2]);
    expect((await events(h, "mfa.verified"))[0]?.payload).toMatchObject({ factor: "totp" });

    const [a, b] = [await challengeOnNewDevice(h, "phone"), await challengeOnNewDevice(h, "desktop")];
    const replays = await Promise.all([a, b].map((c) => kindOf(h.gatehouse.verifyMfa({ challengeId: c.challengeId, otp: code, factor: "totp" }))));
    expect(replays).toEqual(["invalid_otp", "invalid_otp"]);
    h.clock.advance(STEP_MS);
    const next = await h.gatehouse.verifyMfa({ challengeId: a.challengeId, otp: totpCodeAt(secret, h.clock.now()), factor: "totp" });
    expect(next.amr).toEqual(["pwd", "otp"]);
  });

  it("takes a recovery code once and says how many are left", async () => {
    const h = await createHarness();
    const { codes } = await enrolled(h);
    const first = await challengeOnNewDevice(h, "tablet");
    const tokens = await h.gatehouse.verifyMfa({ challengeId: first.challengeId, otp: codes[0]!.toUpperCase(), factor: "recovery_code" });
    expect(tokens.amr).toEqual(["pwd", "rec"]);
    expect((await events(h, "recovery_code.used"))[0]?.payload).toEqual({ left: 9 });
    const again = await challengeOnNewDevice(h, "phone");
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId: again.challengeId, otp: codes[0]!, factor: "recovery_code" }))).toBe("invalid_otp");
  });

  it("answers a factor the org does not allow, or the user does not have, exactly like a wrong code, and counts it", async () => {
    const h = await createHarness();
    const { secret } = await enrolled(h);
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { allowedFactors: ["sms", "recovery_code"] } });
    const challenge = await challengeOnNewDevice(h, "tablet");
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["sms", "recovery_code"]);
    const right = totpCodeAt(secret, h.clock.now() + STEP_MS);
    const refused = await kindOf(h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: right, factor: "totp" }));
    const wrong = await kindOf(h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: "000000", factor: "sms" }));
    // A well-formed assertion by a passkey the user does not hold (a missing one is refused at the edge).
    const assertion = new SoftAuthenticator({ origin: "http://localhost:8080" }).authenticate(JSON.stringify({ challenge: "AAAA" }));
    const passkey = await kindOf(h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: "", factor: "webauthn", webauthnResponseJson: assertion }));
    expect([refused, wrong, passkey]).toEqual(["invalid_otp", "invalid_otp", "invalid_otp"]);
    expect((await h.stores.challenges.findById(challenge.challengeId))?.attempts).toBe(3);
  });

  it("refuses an empty list of allowed factors, naming the setting", async () => {
    const h = await createHarness();
    await expect(h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { allowedFactors: [] } })).rejects.toMatchObject({
      kind: "invalid_argument",
      details: { field: "allowed_factors" },
    });
  });

  it("sends an SMS at once when the phone is the user's only factor, as the spec's flow does", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    const outcome = await h.login("tablet");
    if (outcome.kind !== "mfa_required") throw new Error("expected MFA");
    expect(outcome.challenge.factors).toEqual([{ kind: "sms", label: "+*******4567" }]);
    expect(h.sms.lastOtpFor(outcome.challenge.challengeId)).toBeDefined();
  });
});

describe("step-up", () => {
  it("asks a session whose second factor is stale, then renews it for the same session with new tokens", async () => {
    const h = await createHarness();
    const { secret, tokens } = await enrolled(h);
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { stepUpMaxAgeMinutes: 5 } });
    h.clock.advance(5 * 60_000);
    await h.gatehouse.account.requireStepUp(await h.gatehouse.authenticate(tokens.accessToken));
    h.clock.advance(1);
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    expect(await kindOf(h.gatehouse.account.requireStepUp(principal))).toBe("step_up_required");
    expect(await kindOf(h.gatehouse.account.generateRecoveryCodes(principal))).toBe("step_up_required");

    const challenge = await h.gatehouse.account.startStepUp(principal);
    const stepped = await h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: totpCodeAt(secret, h.clock.now()), factor: "totp" });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
    const renewed = await h.gatehouse.authenticate(stepped.accessToken);
    expect(renewed).toMatchObject({ sessionId: principal.sessionId, amr: ["pwd", "otp"], aal: 2, mfaAt: h.clock.now() });
    await h.gatehouse.account.requireStepUp(renewed);
    expect((await events(h, "session.stepped_up"))[0]?.payload).toEqual({ sessionId: principal.sessionId, factor: "totp" });
  });

  it("a step-up's wrong codes spend its session's budget, not the user's: a stolen session cannot lock the owner out", async () => {
    const h = await createHarness();
    const { tokens, secret } = await enrolled(h);
    const stolen = await h.gatehouse.authenticate(tokens.accessToken);
    const wrong = [];
    for (let i = 0; i < 3; i++) {
      const { challengeId } = await h.gatehouse.account.startStepUp(stolen);
      for (let j = 0; j < 5; j++) wrong.push(await kindOf(h.gatehouse.verifyMfa({ challengeId, otp: "000000", factor: "totp" })));
    }
    expect(wrong.filter((kind) => kind === "invalid_otp")).toHaveLength(10);
    expect(wrong.filter((kind) => kind === "rate_limited")).toHaveLength(5);
    const { challengeId } = await h.gatehouse.account.startStepUp(stolen);
    expect(await kindOf(h.gatehouse.verifyMfa({ challengeId, otp: totpCodeAt(secret, h.clock.now()), factor: "totp" }))).toBe("rate_limited");
    // The owner, on a new device, with the app's next code (enrolling used up the current one): the user's budget is untouched.
    h.clock.advance(30_000);
    const outcome = await h.login("new-tablet");
    if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
    const signedIn = await h.gatehouse.verifyMfa({ challengeId: outcome.challenge.challengeId, otp: totpCodeAt(secret, h.clock.now()), factor: "totp" });
    expect(signedIn.aal).toBe(2);
  });

  it("a step-up texts at most 3 codes an hour per session: a stolen session cannot spend the phone's sends the owner signs in with", async () => {
    const h = await createHarness();
    const stolen = await h.gatehouse.authenticate((await signInWithPhone(h, "laptop")).accessToken);
    for (let i = 0; i < 3; i++) expect((await h.gatehouse.account.startStepUp(stolen)).phoneMask).toBe("+*******4567");
    expect(
      await h.gatehouse.account.startStepUp(stolen).then(String, (error: GatehouseError) => `${error.kind}:${String(error.details.retryAfterSeconds)}`),
    ).toBe("rate_limited:3600");
    // The phone's window (5 in 15 minutes) has room left for its owner's sign-in on a new device.
    const outcome = await h.login("new-tablet");
    if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
    const { challengeId } = outcome.challenge;
    expect((await h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! })).aal).toBe(2);
  });

  it("a code the failure budget refused unchecked spends no attempt: the challenge still works once the budget lifts", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    // Ten wrong codes for the user, over two challenges of someone who holds the password.
    for (const device of ["attacker-1", "attacker-2"]) {
      const outcome = await h.login(device);
      if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
      for (let i = 0; i < 5; i++) await kindOf(h.gatehouse.verifyMfa({ challengeId: outcome.challenge.challengeId, otp: "000000" }));
    }
    h.clock.advance(15 * 60_000 - 10_000);
    const outcome = await h.login("new-tablet");
    if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
    const { challengeId } = outcome.challenge;
    const otp = h.sms.lastOtpFor(challengeId)!;
    // The owner, refused while the budget is spent, tries more often than the challenge has attempts.
    for (let i = 0; i < 6; i++) expect(await kindOf(h.gatehouse.verifyMfa({ challengeId, otp }))).toBe("rate_limited");
    h.clock.advance(10_000);
    expect((await h.gatehouse.verifyMfa({ challengeId, otp })).aal).toBe(2);
  });

  it("stays a step-up of the same session when its code is sent on request or resent", async () => {
    const h = await createHarness();
    const { tokens } = await enrolled(h);
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    const challenge = await h.gatehouse.account.startStepUp(principal);
    expect(challenge.factors.map((factor) => factor.kind)).toEqual(["totp", "sms", "recovery_code"]);
    await h.gatehouse.sendMfaCode({ challengeId: challenge.challengeId });
    h.clock.advance(60_000);
    const resent = await h.gatehouse.resendMfa({ challengeId: challenge.challengeId });
    const stepped = await h.gatehouse.verifyMfa({ challengeId: resent.challengeId, otp: h.sms.lastOtpFor(resent.challengeId)!, factor: "sms" });
    expect((await h.gatehouse.authenticate(stepped.accessToken)).sessionId).toBe(principal.sessionId);
    expect(await events(h, "session.created")).toHaveLength(1);
  });

  it("a resend of the code to a phone being verified lists that phone, as SubmitPhone's answer did", async () => {
    const h = await createHarness();
    const outcome = await h.login("laptop");
    if (outcome.kind !== "phone_required") throw new Error(`expected a phone intent, got ${outcome.kind}`);
    const submitted = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15551234567" });
    h.clock.advance(60_000);
    const resent = await h.gatehouse.resendMfa({ challengeId: submitted.challengeId });
    expect(resent.factors).toEqual(submitted.factors);
    expect(resent.factors).toEqual([{ kind: "sms", label: "+*******4567" }]);
  });

  it("lets a user with no factor add the first one without a step-up, with the account's password", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
    const outcome = await h.login("laptop");
    if (outcome.kind !== "tokens") throw new Error("expected tokens");
    expect([outcome.tokens.amr, outcome.tokens.aal]).toEqual([["pwd"], 1]);
    const principal = await h.gatehouse.authenticate(outcome.tokens.accessToken);
    const field = (operation: Promise<unknown>) => operation.then(String, (error: GatehouseError) => `${error.kind}:${String(error.details.field)}`);
    expect(await field(h.gatehouse.account.generateRecoveryCodes(principal))).toBe("invalid_argument:current_password");
    expect(await field(h.gatehouse.account.generateRecoveryCodes(principal, { proof: { currentPassword: "not it" } }))).toBe(
      "invalid_argument:current_password",
    );
    expect(await h.gatehouse.account.generateRecoveryCodes(principal, { proof: { currentPassword: PASSWORD } })).toHaveLength(10);
    expect(await kindOf(h.gatehouse.account.generateRecoveryCodes(principal, { proof: { currentPassword: PASSWORD } }))).toBe("step_up_required");
  });

  it("a session alone, stolen or left open, cannot plant a first factor: no passkey, app or codes without the password, and guessing it spends the account's budget", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
    const outcome = await h.login("laptop");
    if (outcome.kind !== "tokens") throw new Error("expected tokens");
    const stolen = await h.gatehouse.authenticate(outcome.tokens.accessToken);
    expect(await kindOf(h.gatehouse.account.startPasskeyRegistration(stolen, { label: "Mallory's key" }))).toBe("invalid_argument");
    expect(await kindOf(h.gatehouse.account.startTotpEnrollment(stolen, { label: "Mallory's app" }))).toBe("invalid_argument");
    // A malformed password is refused as any password field refuses it, before it spends a guess.
    expect(await kindOf(h.gatehouse.account.startPasskeyRegistration(stolen, { label: "key", proof: { currentPassword: "x".repeat(5_000) } }))).toBe(
      "invalid_argument",
    );
    const guesses = [];
    for (let i = 0; i < 10; i++)
      guesses.push(await kindOf(h.gatehouse.account.startPasskeyRegistration(stolen, { label: "key", proof: { currentPassword: `guess ${i}` } })));
    expect(guesses).toEqual(Array(10).fill("invalid_argument"));
    expect(await kindOf(h.gatehouse.account.startPasskeyRegistration(stolen, { label: "key", proof: { currentPassword: PASSWORD } }))).toBe("rate_limited");
    expect((await h.gatehouse.account.listFactors(stolen)).factors).toEqual([]);
  });

  it("keeps the last factor the org accepts", async () => {
    const h = await createHarness();
    const { tokens } = await enrolled(h);
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { allowedFactors: ["totp"] } });
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    const [app] = (await h.gatehouse.account.listFactors(principal)).factors;
    expect(await kindOf(h.gatehouse.account.removeFactor(principal, { factorId: app!.id }))).toBe("permission_denied");
    await h.gatehouse.account.removeFactor(principal, { factorId: "recovery_codes" });
    expect((await h.gatehouse.account.listFactors(principal)).recoveryCodesLeft).toBe(0);
  });
});

describe("an admin's factor reset", () => {
  it("removes the apps and codes, unlocks the phone and ends every session and device trust, with the reason", async () => {
    const h = await createHarness();
    const { tokens } = await enrolled(h);
    await h.gatehouse.admin.resetUserFactors(SYSTEM, { orgId: h.orgId, userId: h.userId, reason: "lost phone, identity checked" });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
    expect((await h.login("laptop")).kind).toBe("phone_required");
    expect(await h.stores.recoveryCodes.count(h.userId)).toBe(0);
    expect((await events(h, "factors.reset"))[0]?.payload).toEqual({ reason: "lost phone, identity checked", removed: 12 });
  });

  it("by an org admin, only for an account their org alone has: the admin of another org reaches it only once its owner accepts, and cannot strip its factors", async () => {
    const h = await createHarness();
    const { tokens } = await enrolled(h);
    const { orgId: mallorysOrg } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Mallory's" });
    const mallory = await h.gatehouse.register({ email: "mallory@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: mallorysOrg, email: "mallory@example.com", role: "admin" });
    const asMallory = { kind: "user", userId: mallory.userId, orgId: mallorysOrg } as const;
    // A verified account is invited, not added: until its owner accepts, Mallory's org cannot reach it at all.
    expect((await h.gatehouse.admin.addMember(asMallory, { orgId: mallorysOrg, email: "ada@example.com", role: "member" })).status).toBe("invited");
    expect(await kindOf(h.gatehouse.admin.resetUserFactors(asMallory, { orgId: mallorysOrg, userId: h.userId, reason: "says she lost her phone" }))).toBe(
      "not_found",
    );
    // Once Ada accepts, the factors still are hers in her other org: Mallory cannot strip them.
    const invitation = h.email.lastToken("ada@example.com", "accept-invitation");
    await h.gatehouse.acceptInvitation({ token: invitation ?? "", password: "" });
    expect(await kindOf(h.gatehouse.admin.resetUserFactors(asMallory, { orgId: mallorysOrg, userId: h.userId, reason: "says she lost her phone" }))).toBe(
      "permission_denied",
    );
    await expect(h.gatehouse.authenticate(tokens.accessToken)).resolves.toMatchObject({ userId: h.userId });
    expect((await h.gatehouse.account.listFactors(await h.gatehouse.authenticate(tokens.accessToken))).factors).toHaveLength(1);
    expect(await h.stores.recoveryCodes.count(h.userId)).toBe(10);

    // Once the account is in Mallory's org alone, its factors are that org's to reset.
    await h.gatehouse.admin.removeMember(SYSTEM, { orgId: h.orgId, userId: h.userId });
    await h.gatehouse.admin.resetUserFactors(asMallory, { orgId: mallorysOrg, userId: h.userId, reason: "lost phone, identity checked" });
    expect(await h.stores.recoveryCodes.count(h.userId)).toBe(0);
  });

  it("where the org asks MFA of new devices only, the holder of the password on a device used before still needs a factor", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    await enrolled(h);
    expect((await h.login("laptop")).kind).toBe("tokens");
    await h.gatehouse.admin.resetUserFactors(SYSTEM, { orgId: h.orgId, userId: h.userId, reason: "lost phone, identity checked" });
    expect((await h.login("laptop")).kind).toBe("phone_required");
    expect(await events(h, "device.trust_revoked")).toHaveLength(1);
  });
});
