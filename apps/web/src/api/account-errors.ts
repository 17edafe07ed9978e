import { errorFactsOf } from "@gatehouse/contract";
import { formatWait } from "../format-wait.ts";
import { describeAuthError } from "./auth-errors.ts";

/** What the account page was doing when a call failed; some kinds read differently per action. */
export type AccountAction =
  "load" | "add-app" | "confirm-app" | "add-passkey" | "recovery-codes" | "remove-factor" | "revoke-session" | "forget-device" | "answer-sign-in";

/** True when the call needs a fresh second factor first (the page then asks for one and retries). */
export function isStepUpRequired(error: unknown): boolean {
  return errorFactsOf(error).kind === "step_up_required";
}

/**
 * A message for people from a failed AccountService call, chosen by the error's kind and field
 * (never its text). Kinds the sign-in pages word too (unreachable, storage, rate limits) read the same.
 */
export function describeAccountError(error: unknown, action: AccountAction): { readonly message: string; readonly field: string | null } {
  if (error instanceof StepUpCancelledError) return { message: "Nothing was changed: this change needs you to confirm it is you first.", field: null };
  const { kind, field, retryAfterSeconds } = errorFactsOf(error);
  switch (kind) {
    case "invalid_argument":
      if (field === "webauthn_response_json")
        return { message: "That passkey could not be added (it may be added already). Try again, or use another one.", field: null };
      if (action === "add-passkey" && field === "label")
        return { message: "Use a name of at most 64 characters. You can have at most 10 passkeys: remove one first.", field: null };
      if (field === "current_password")
        return { message: "Enter your account’s password above, the one you sign in with: your first second factor needs it.", field };
      if (field === "code" || field === "otp") return { message: "That code is not right. Enter the code your authenticator app shows now.", field };
      if (field === "label") return { message: "Use a name of at most 64 characters. You can have at most 5 authenticator apps: remove one first.", field };
      return { message: "Something in the request was not accepted. Reload the page and try again.", field: null };
    case "permission_denied":
      return action === "remove-factor"
        ? { message: "This is the last second factor your organization accepts, so it stays. Add another one first.", field: null }
        : { message: "Your account cannot do that in this organization.", field: null };
    case "not_found":
      if (action === "add-passkey") return { message: "This setup has expired. Add the passkey again.", field: null };
      return action === "confirm-app"
        ? { message: "This setup has expired. Start adding the app again.", field: null }
        : { message: "It was already removed. The list below is up to date now.", field: null };
    case "rate_limited":
      return { message: `Too many attempts. Try again in ${retryAfterSeconds === null ? "a few minutes" : formatWait(retryAfterSeconds)}.`, field: null };
    default: {
      const { message } = describeAuthError(error, "link");
      return { message, field: null };
    }
  }
}

/** The user closed the step-up a change asked for: the change was not made. */
export class StepUpCancelledError extends Error {
  constructor() {
    super("The step-up was cancelled.");
    this.name = "StepUpCancelledError";
  }
}
