import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
import { describe, expect, it } from "vitest";
import { describeAuthError, type AuthStep } from "../src/api/auth-errors.ts";
import { formatWait } from "../src/format-wait.ts";

/** A server error as the client receives it: code, a developer message it must never show, and the typed detail. */
function serverError(code: Code, kind: string, field = "", retryAfterSeconds = 0): ConnectError {
  const detail = create(ErrorDetailSchema, { kind, field, retryAfterSeconds });
  return new ConnectError("developer text: must not be shown", code, undefined, [{ desc: ErrorDetailSchema, value: detail }]);
}

/** What the wire really carries: the detail as bytes, decoded by findDetails. */
function wireError(code: Code, kind: string, field = "", retryAfterSeconds = 0): ConnectError {
  const value = toBinary(ErrorDetailSchema, create(ErrorDetailSchema, { kind, field, retryAfterSeconds }));
  const error = new ConnectError("email: is not a valid email address", code);
  error.details.push({ type: ErrorDetailSchema.typeName, value });
  return error;
}

describe("describeAuthError: keyed on the error's kind and field, never its message", () => {
  it.each<[AuthStep, ConnectError, string]>([
    ["passkey", serverError(Code.Unauthenticated, "invalid_otp"), "That passkey was not accepted for this account. Try it again, or choose another way."],
    [
      "passkey-sign-in",
      serverError(Code.Unauthenticated, "invalid_credentials"),
      "That passkey was not accepted. Use a passkey of this account, or sign in with your password.",
    ],
    ["passkey-sign-in", serverError(Code.Unauthenticated, "invalid_mfa_challenge"), "This passkey sign-in has expired. Try again."],
    [
      "passkey-sign-in",
      serverError(Code.PermissionDenied, "permission_denied"),
      "This organization does not allow passkey sign-in, or your account cannot sign in to it. Sign in with your password.",
    ],
    ["login", serverError(Code.Unauthenticated, "invalid_credentials"), "The email or password is incorrect."],
  ])("words a passkey refusal at %s", (step, error, message) => {
    expect(describeAuthError(error, step).message).toBe(message);
  });

  it("marks the code step spent on the last wrong code and on a dead challenge's resend, never on an ordinary wrong code", () => {
    const spentOf = (step: AuthStep, field: string) =>
      describeAuthError(serverError(Code.Unauthenticated, "invalid_mfa_challenge", field), step).challengeSpent;
    expect(describeAuthError(serverError(Code.Unauthenticated, "invalid_mfa_challenge", "challenge_id"), "otp")).toMatchObject({
      message: expect.stringContaining("it was the last try"),
      field: null,
      challengeSpent: true,
    });
    expect([spentOf("otp", ""), spentOf("resend", ""), spentOf("resend", "challenge_id")]).toEqual([undefined, true, true]);
  });

  it.each<[AuthStep, ConnectError, string, string | null]>([
    ["login", serverError(Code.InvalidArgument, "invalid_argument", "email"), "Enter a valid email address, like name@example.com.", "email"],
    [
      "register",
      serverError(Code.InvalidArgument, "invalid_argument", "password"),
      "Choose a password of at least 8 characters that is not a common one, not only spaces or one character repeated, and does not contain your email's name.",
      "password",
    ],
    ["login", serverError(Code.FailedPrecondition, "email_not_verified"), expect.stringContaining("Confirm your email address first"), null],
    ["link", serverError(Code.Unauthenticated, "invalid_link"), "This link has expired or was already used. Ask for a new one.", null],
    ["link", serverError(Code.InvalidArgument, "invalid_argument", "new_password"), expect.stringContaining("not a common one"), "new_password"],
    [
      "login",
      serverError(Code.InvalidArgument, "invalid_argument", "org_id"),
      "Enter your organization's short name, like acme. It has only letters, digits and hyphens.",
      "org_id",
    ],
    ["phone", serverError(Code.InvalidArgument, "invalid_argument", "phone"), "Enter a phone number with 10 to 15 digits, for example +15551234567.", "phone"],
    ["otp", serverError(Code.InvalidArgument, "invalid_argument", "challenge_id"), "This sign-in attempt can no longer be used. Start over.", null],
    ["login", serverError(Code.Unauthenticated, "invalid_credentials"), "The email or password is incorrect.", null],
    [
      "login",
      serverError(Code.PermissionDenied, "not_org_member"),
      "This account is not a member of that organization. Check the organization's short name.",
      "org_id",
    ],
    ["register", serverError(Code.AlreadyExists, "already_exists"), "An account with this email already exists. Sign in instead.", "email"],
    ["otp", serverError(Code.Unauthenticated, "invalid_mfa_challenge"), "That code is not right, or it has expired. Check it, or send a new code.", "otp"],
    ["app-code", serverError(Code.Unauthenticated, "invalid_mfa_challenge"), "That code is not right. Enter the code your authenticator app shows now.", "otp"],
    ["recovery-code", serverError(Code.Unauthenticated, "invalid_mfa_challenge"), "That recovery code is not right, or it was already used.", "otp"],
    ["recovery-code", serverError(Code.InvalidArgument, "invalid_argument", "otp"), "That recovery code is not right, or it was already used.", "otp"],
    ["otp", serverError(Code.InvalidArgument, "invalid_argument", "otp"), "Enter the 6-digit code from the text message.", "otp"],
    ["resend", serverError(Code.Unauthenticated, "invalid_mfa_challenge"), "This sign-in attempt has expired. Start over.", null],
    ["otp", serverError(Code.FailedPrecondition, "challenge_expired"), "This code has expired. Start over to get a new one.", null],
    ["phone", serverError(Code.Unauthenticated, "invalid_mfa_intent"), "This sign-in attempt has expired. Start over.", null],
    ["login", serverError(Code.ResourceExhausted, "rate_limited", "", 42), "Too many attempts. Try again in 42 seconds.", null],
    ["resend", serverError(Code.ResourceExhausted, "rate_limited", "", 600), "You can ask for a new code in 10 minutes.", null],
    ["phone", serverError(Code.Unavailable, "sms_unavailable"), "We could not send the text message just now. Try again in a moment.", null],
    ["login", wireError(Code.InvalidArgument, "invalid_argument", "email"), "Enter a valid email address, like name@example.com.", "email"],
    ["login", serverError(Code.PermissionDenied, "permission_denied"), "Something went wrong. Try again.", null],
    ["login", serverError(Code.InvalidArgument, "a_kind_from_a_newer_server"), "Something went wrong. Try again.", null],
    ["login", new ConnectError("fetch failed", Code.Unavailable), "The service could not be reached. Check your connection and try again.", null],
    ["login", new ConnectError("no detail", Code.InvalidArgument), "Something went wrong. Try again.", null],
    ["login", ConnectError.from(new TypeError("Failed to fetch")), "The service could not be reached. Check your connection and try again.", null],
  ])("%s: %s", (step, error, message, field) => {
    const problem = describeAuthError(error, step);
    expect(problem).toMatchObject({ message, field });
    expect(problem.message).not.toContain("must not be shown");
    expect(problem.message).not.toContain("is not a valid email address");
  });

  it("passes the retry time on for the resend countdown", () => {
    expect(describeAuthError(serverError(Code.ResourceExhausted, "rate_limited", "", 25), "resend").retryAfterSeconds).toBe(25);
  });

  it.each([
    [1, "1 second"],
    [59, "59 seconds"],
    [60, "1 minute"],
    [61, "2 minutes"],
    [900, "15 minutes"],
  ])("formatWait(%i) → %j", (seconds, text) => {
    expect(formatWait(seconds)).toBe(text);
  });
});
