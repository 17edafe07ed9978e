import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
import { describe, expect, it } from "vitest";
import { StepUpCancelledError } from "../src/api/account-errors.ts";
import { describeAdminError, type AdminAction } from "../src/api/admin-errors.ts";

function serverError(code: Code, kind: string, field = "", retryAfterSeconds = 0): ConnectError {
  const detail = create(ErrorDetailSchema, { kind, field, retryAfterSeconds });
  return new ConnectError("developer text: must not be shown", code, undefined, [{ desc: ErrorDetailSchema, value: detail }]);
}

describe("describeAdminError: the console's refusals in words, from the error's kind, field and action", () => {
  it.each<[AdminAction, unknown, string, string | null]>([
    ["load", serverError(Code.PermissionDenied, "permission_denied"), "Your account is not an admin of this organization, so it cannot do that.", null],
    ["set-role", serverError(Code.PermissionDenied, "permission_denied"), "You cannot change your own role: another admin of this organization can.", null],
    ["invite", serverError(Code.InvalidArgument, "invalid_argument", "email"), "Enter an email address such as name@example.com.", "email"],
    [
      "reset-factors",
      serverError(Code.InvalidArgument, "invalid_argument", "reason"),
      "Say why, in at most 500 characters: the audit trail records it.",
      "reason",
    ],
    [
      "save-policy",
      serverError(Code.InvalidArgument, "invalid_argument", "access_control.blocked_domains"),
      "Some entries of the Blocked list were refused: fix the marked ones, then try again.",
      "access_control.blocked_domains",
    ],
    [
      "save-policy",
      serverError(Code.InvalidArgument, "invalid_argument", "policy"),
      "Some entries were refused: fix the marked ones, then try again.",
      "policy",
    ],
    [
      "save-mfa",
      serverError(Code.InvalidArgument, "invalid_argument", "require_phishing_resistant"),
      "Requiring a passkey needs passkeys among the allowed factors.",
      "require_phishing_resistant",
    ],
    ["remove", serverError(Code.NotFound, "not_found"), "That member or invitation is no longer there. The list is up to date now.", null],
    ["invite", serverError(Code.ResourceExhausted, "rate_limited", "", 120), "Too many emails sent for now. Try again in 2 minutes.", null],
    [
      "invite",
      serverError(Code.Unavailable, "email_unavailable"),
      "The email could not be sent just now, so nothing was changed. Try again in a few minutes.",
      null,
    ],
    ["sign-out", new StepUpCancelledError(), "Nothing was changed: the console needs you to confirm it is you first.", null],
  ])("%s: %s", (action, error, message, field) => {
    expect(describeAdminError(error, action)).toEqual({ message, field });
  });
});
