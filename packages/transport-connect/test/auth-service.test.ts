import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { beforeEach, describe, expect, it } from "vitest";
import { bearer, createRouterHarness, expectConnectError, PASSWORD, PHONE, type RouterHarness } from "./support/router-harness.ts";

const MINUTE = 60_000;

describe("AuthService over the in-memory router transport", () => {
  let h: RouterHarness;

  beforeEach(async () => {
    h = await createRouterHarness();
  });

  describe("Register", () => {
    it("registers and answers the new user id", async () => {
      const { userId } = await h.auth.register({ email: "ada@example.com", password: PASSWORD, displayName: "Ada" });
      expect(userId).not.toBe("");
      expect((await h.stores.users.findByEmail("ada@example.com"))?.id).toBe(userId);
    });

    it("a malformed email is InvalidArgument naming the field", async () => {
      await expectConnectError(h.auth.register({ email: "not-an-email", password: PASSWORD }), {
        code: Code.InvalidArgument,
        message: expect.stringContaining("email") as unknown as string,
        detail: { kind: "invalid_argument", field: "email" },
      });
    });

    it("a taken email gets the same answer: an id that names no account, the owner emailed instead", async () => {
      const first = await h.auth.register({ email: "ada@example.com", password: PASSWORD });
      await h.auth.verifyEmail({ token: h.email.lastToken("ada@example.com", "verify-email")!, registrantProof: first.registrantProof });
      const second = await h.auth.register({ email: "ada@example.com", password: "another password 1" });
      expect(second.userId).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.userId).not.toBe(first.userId);
      expect(second.registrantProof).toMatch(/^gh_rp_[\w-]{43}$/);
      expect(await h.stores.users.findById(second.userId)).toBeNull();
      expect(h.email.to("ada@example.com").map((message) => message.subject)).toEqual(["Confirm your email address", "You already have an account"]);
    });

    it("a common password is InvalidArgument saying which rule", async () => {
      await expectConnectError(h.auth.register({ email: "ada@example.com", password: "12345678" }), {
        code: Code.InvalidArgument,
        message: "password: is one of the 10,000 most common passwords",
        detail: { kind: "invalid_argument", field: "password" },
      });
    });
  });

  describe("email links", () => {
    it("an unverified account's right password is FailedPrecondition email_not_verified until VerifyEmail", async () => {
      const { registrantProof } = await h.auth.register({ email: "bob@example.com", password: PASSWORD });
      await h.gatehouse.admin.updateOrgMfaSettings(
        { kind: "system" },
        { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } },
      );
      await expectConnectError(h.auth.login({ email: "bob@example.com", password: PASSWORD, orgId: h.orgId }), {
        code: Code.FailedPrecondition,
        message: "email not verified",
        detail: { kind: "email_not_verified" },
      });
      const token = h.email.lastToken("bob@example.com", "verify-email")!;
      await expectConnectError(h.auth.verifyEmail({ token }), {
        code: Code.InvalidArgument,
        message: "new_password: is required: choose the account's password (this link was opened without the browser that registered)",
        detail: { kind: "invalid_argument", field: "new_password" },
      });
      expect(await h.auth.verifyEmail({ token, registrantProof })).toMatchObject({});
      await expectConnectError(h.auth.verifyEmail({ token, registrantProof }), {
        code: Code.Unauthenticated,
        message: "invalid or expired link",
        detail: { kind: "invalid_link" },
      });
      await expectConnectError(h.auth.verifyEmail({ token: "" }), {
        code: Code.InvalidArgument,
        message: "token: is required",
        detail: { kind: "invalid_argument", field: "token" },
      });
    });

    it("RequestPasswordReset answers {} for any address; ResetPassword then ChangePassword over the wire", async () => {
      await h.member("ada@example.com");
      await h.auth.requestPasswordReset({ email: "nobody@example.com" });
      await h.auth.requestPasswordReset({ email: "ada@example.com" });
      await h.auth.resetPassword({ token: h.email.lastToken("ada@example.com", "reset-password")!, newPassword: "a brand new secret 1" });
      const tokens = await h.signIn("ada@example.com", "laptop", h.orgId, "a brand new secret 1");
      await expectConnectError(h.account.changePassword({ currentPassword: "a brand new secret 1", newPassword: "password1" }, bearer(tokens.accessToken)), {
        code: Code.InvalidArgument,
        message: "new_password: is one of the 10,000 most common passwords",
        detail: { kind: "invalid_argument", field: "new_password" },
      });
      await h.account.changePassword({ currentPassword: "a brand new secret 1", newPassword: "another secret 22" }, bearer(tokens.accessToken));
      await expectConnectError(h.account.changePassword({ currentPassword: "x", newPassword: "y" }), {
        code: Code.Unauthenticated,
        message: "invalid or expired session",
        detail: { kind: "unauthenticated" },
      });
    });
  });

  describe("Login", () => {
    beforeEach(async () => {
      await h.member("ada@example.com");
    });

    it("a user with no phone gets PhoneRequired with an intent id", async () => {
      const login = await h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop" });
      expect(login.result.case).toBe("phoneRequired");
      expect(login.result.case === "phoneRequired" && login.result.value.intentId).not.toBe("");
    });

    it("a user with a phone on a new device gets MFARequired with a masked phone and the resend interval", async () => {
      await h.signIn("ada@example.com", "laptop");
      const login = await h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "phone" });
      if (login.result.case !== "mfaRequired") throw new Error(`expected mfaRequired, got ${login.result.case}`);
      expect(login.result.value.phoneMask).not.toContain(PHONE.slice(2, 9));
      expect(login.result.value.phoneMask.endsWith(PHONE.slice(-2))).toBe(true);
      expect(login.result.value.resendAfterSeconds).toBeGreaterThan(0);
      expect(login.result.value.challengeId).not.toBe("");
    });

    it("a known trusted device gets tokens, with the user, org and expiry", async () => {
      const first = await h.signIn("ada@example.com", "laptop");
      const login = await h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop" });
      if (login.result.case !== "tokens") throw new Error(`expected tokens, got ${login.result.case}`);
      expect(login.result.value.userId).toBe(first.userId);
      expect(login.result.value.orgId).toBe(h.orgId);
      expect(timestampMs(login.result.value.expiresAt!)).toBeGreaterThan(h.clock.now());
    });

    it("a wrong password and an unknown email are the same Unauthenticated answer", async () => {
      const expected = { code: Code.Unauthenticated, message: "invalid email or password", detail: { kind: "invalid_credentials" } };
      await expectConnectError(h.auth.login({ email: "ada@example.com", password: "wrong password!", orgId: h.orgId }), expected);
      await expectConnectError(h.auth.login({ email: "nobody@example.com", password: PASSWORD, orgId: h.orgId }), expected);
    });

    it("a user outside the org is PermissionDenied", async () => {
      await h.gatehouse.register({ email: "eve@example.com", password: PASSWORD, emailVerified: true });
      await expectConnectError(h.auth.login({ email: "eve@example.com", password: PASSWORD, orgId: h.orgId }), {
        code: Code.PermissionDenied,
        message: "not a member of this organization",
        detail: { kind: "not_org_member" },
      });
    });
  });

  describe("SubmitPhoneAndRequestMFA, VerifyMFA and ResendMFA", () => {
    let intentId: string;

    beforeEach(async () => {
      await h.member("ada@example.com");
      const login = await h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop" });
      intentId = login.result.case === "phoneRequired" ? login.result.value.intentId : "";
    });

    it("submitting a phone sends an OTP; verifying it issues tokens", async () => {
      const { challengeId, phoneMask } = await h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
      expect(phoneMask.endsWith(PHONE.slice(-2))).toBe(true);
      const tokens = await h.auth.verifyMFA({ challengeId, otp: h.sms.lastOtpFor(challengeId)! });
      expect(tokens.accessToken).not.toBe("");
      expect(tokens.refreshToken).not.toBe("");
    });

    it("an unknown intent, or one used twice, is Unauthenticated invalid_mfa_intent", async () => {
      const expected = { code: Code.Unauthenticated, message: "invalid or expired MFA intent", detail: { kind: "invalid_mfa_intent" } };
      await expectConnectError(h.auth.submitPhoneAndRequestMFA({ intentId: "no-such-intent", phone: PHONE }), expected);
      await h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
      await expectConnectError(h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE }), expected);
    });

    it("a malformed phone is InvalidArgument naming the field", async () => {
      await expectConnectError(h.auth.submitPhoneAndRequestMFA({ intentId, phone: "12" }), {
        code: Code.InvalidArgument,
        message: expect.stringContaining("phone") as unknown as string,
        detail: { kind: "invalid_argument", field: "phone" },
      });
    });

    it("an SMS provider that is down is Unavailable, with nothing of the provider's error", async () => {
      h.sms.failing = true;
      const error = await expectConnectError(h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE }), {
        code: Code.Unavailable,
        message: "SMS delivery is unavailable; try again later",
        detail: { kind: "sms_unavailable" },
      });
      expect(error.message).not.toContain("provider");
    });

    it("a wrong OTP and an unknown challenge share one code, message and kind", async () => {
      const { challengeId } = await h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
      const wrong = h.sms.lastOtpFor(challengeId) === "000000" ? "111111" : "000000";
      const expected = { code: Code.Unauthenticated, message: "invalid or expired MFA challenge", detail: { kind: "invalid_mfa_challenge" } };
      await expectConnectError(h.auth.verifyMFA({ challengeId, otp: wrong }), expected);
      await expectConnectError(h.auth.verifyMFA({ challengeId: "no-such-challenge", otp: wrong }), expected);
    });

    it("an expired challenge is FailedPrecondition challenge_expired, for VerifyMFA and ResendMFA", async () => {
      const { challengeId } = await h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
      h.clock.advance(60 * MINUTE);
      const expected = { code: Code.FailedPrecondition, message: "MFA challenge expired", detail: { kind: "challenge_expired" } };
      await expectConnectError(h.auth.verifyMFA({ challengeId, otp: h.sms.lastOtpFor(challengeId)! }), expected);
      await expectConnectError(h.auth.resendMFA({ challengeId }), expected);
    });

    it("ResendMFA after the interval replaces the challenge and sends its code; before it, ResourceExhausted with the retry time", async () => {
      const { challengeId, resendAfterSeconds } = await h.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
      const error = await expectConnectError(h.auth.resendMFA({ challengeId }), {
        code: Code.ResourceExhausted,
        message: expect.stringContaining("retry") as unknown as string,
        detail: { kind: "rate_limited", retryAfterSeconds: resendAfterSeconds },
      });
      expect(error.metadata.get("retry-after")).toBe(String(resendAfterSeconds));
      h.clock.advance(resendAfterSeconds * 1000);
      const sent = h.sms.sent.length;
      const resent = await h.auth.resendMFA({ challengeId });
      expect(resent.challengeId).not.toBe(challengeId);
      expect(h.sms.sent.length).toBe(sent + 1);
      expect((await h.auth.verifyMFA({ challengeId: resent.challengeId, otp: h.sms.lastOtpFor(resent.challengeId)! })).accessToken).not.toBe("");
    });
  });

  describe("SendMfaCode", () => {
    it("texts a code on request, with no bearer token, to a signed-out user who has another factor too", async () => {
      await h.member("ada@example.com");
      const first = await h.signIn("ada@example.com");
      await h.account.generateRecoveryCodes({}, bearer(first.accessToken));
      const login = await h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "new-laptop" });
      if (login.result.case !== "mfaRequired") throw new Error(`expected mfaRequired, got ${login.result.case}`);
      const { challengeId, factors } = login.result.value;
      expect(factors.map(({ kind }) => kind)).toEqual(["sms", "recovery_code"]);
      expect(h.sms.lastOtpFor(challengeId)).toBeUndefined();

      const sent = await h.auth.sendMfaCode({ challengeId });
      expect(sent.phoneMask.endsWith(PHONE.slice(-4))).toBe(true);
      expect((await h.auth.verifyMFA({ challengeId, otp: h.sms.lastOtpFor(challengeId)! })).accessToken).not.toBe("");
    });
  });

  describe("Refresh and Logout", () => {
    beforeEach(async () => {
      await h.member("ada@example.com");
    });

    it("Refresh rotates the tokens; the old refresh token then revokes the session", async () => {
      const first = await h.signIn("ada@example.com");
      const refreshed = await h.auth.refresh({ refreshToken: first.refreshToken, deviceFingerprint: "laptop" });
      if (refreshed.result.case !== "tokens") throw new Error(`expected tokens, got ${refreshed.result.case}`);
      expect(refreshed.result.value.refreshToken).not.toBe(first.refreshToken);
      h.clock.advance(MINUTE);
      await expectConnectError(h.auth.refresh({ refreshToken: first.refreshToken, deviceFingerprint: "laptop" }), {
        code: Code.Unauthenticated,
        message: "invalid or expired refresh token",
        detail: { kind: "unauthenticated" },
      });
      await expectConnectError(h.auth.logout({}, bearer(refreshed.result.value.accessToken)), {
        code: Code.Unauthenticated,
        message: "invalid or expired session",
      });
    });

    it("Refresh with an unknown token is Unauthenticated", async () => {
      await expectConnectError(h.auth.refresh({ refreshToken: "no-such-token" }), {
        code: Code.Unauthenticated,
        message: "invalid or expired refresh token",
        detail: { kind: "unauthenticated" },
      });
    });

    it("Logout ends the session: its access token is refused afterwards", async () => {
      const { accessToken } = await h.signIn("ada@example.com");
      expect(await h.auth.logout({}, bearer(accessToken))).toBeDefined();
      await expectConnectError(h.auth.logout({}, bearer(accessToken)), {
        code: Code.Unauthenticated,
        message: "invalid or expired session",
        detail: { kind: "unauthenticated" },
      });
    });
  });
});
