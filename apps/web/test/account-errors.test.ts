import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
import { describe, expect, it } from "vitest";
import { describeAccountError, isStepUpRequired, StepUpCancelledError, type AccountAction } from "../src/api/account-errors.ts";

function serverError(code: Code, kind: string, field = "", retryAfterSeconds = 0): ConnectError {
  const detail = create(ErrorDetailSchema, { kind, field, retryAfterSeconds });
  return new ConnectError("developer text: must not be shown", code, undefined, [{ desc: ErrorDetailSchema, value: detail }]);
}

describe("describeAccountError: keyed on the error's kind, field and the page's action", () => {
  it.each<[AccountAction, unknown, string, string | null]>([
    [
      "confirm-app",
      serverError(Code.InvalidArgument, "invalid_argument", "code"),
      "That code is not right. Enter the code your authenticator app shows now.",
      "code",
    ],
    ["confirm-app", serverError(Code.NotFound, "not_found"), "This setup has expired. Start adding the app again.", null],
    ["remove-factor", serverError(Code.NotFound, "not_found"), "It was already removed. The list below is up to date now.", null],
    [
      "remove-factor",
      serverError(Code.PermissionDenied, "permission_denied"),
      "This is the last second factor your organization accepts, so it stays. Add another one first.",
      null,
    ],
    [
      "add-app",
      serverError(Code.InvalidArgument, "invalid_argument", "label"),
      expect.stringContaining("at most 5 authenticator apps") as unknown as string,
      "label",
    ],
    ["recovery-codes", serverError(Code.ResourceExhausted, "rate_limited", "", 90), "Too many attempts. Try again in 2 minutes.", null],
    ["recovery-codes", new StepUpCancelledError(), "Nothing was changed: this change needs you to confirm it is you first.", null],
    ["load", new ConnectError("fetch failed", Code.Unavailable), "The service could not be reached. Check your connection and try again.", null],
  ])("%s: %s", (action, error, message, field) => {
    const problem = describeAccountError(error, action);
    expect(problem).toEqual({ message, field });
    expect(problem.message).not.toContain("must not be shown");
  });

  it("tells a step-up requirement from any other refusal", () => {
    expect(isStepUpRequired(serverError(Code.FailedPrecondition, "step_up_required"))).toBe(true);
    expect(isStepUpRequired(serverError(Code.FailedPrecondition, "challenge_expired"))).toBe(false);
    expect(isStepUpRequired(new Error("not a ConnectError"))).toBe(false);
  });
});
