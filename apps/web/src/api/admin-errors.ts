import { errorFactsOf } from "@gatehouse/contract";
import { formatWait } from "../format-wait.ts";
import { StepUpCancelledError } from "./account-errors.ts";
import { describeAuthError } from "./auth-errors.ts";

/** What the console was doing when a call failed; some kinds read differently per action. */
export type AdminAction =
  | "load"
  | "invite"
  | "revoke-invitation"
  | "set-role"
  | "remove"
  | "sign-out"
  | "password-reset"
  | "reset-factors"
  | "revoke-device"
  | "save-mfa"
  | "save-policy"
  | "test-url";

const FIELD_WORDS: Readonly<Record<string, string>> = {
  email: "Enter an email address such as name@example.com.",
  reason: "Say why, in at most 500 characters: the audit trail records it.",
  url: "Enter a web address to test.",
  trust_ttl_days: "Enter a whole number of days, 0 or more, no more than the platform allows.",
  step_up_max_age_minutes: "Enter a whole number of minutes from 1 to 1440.",
  extension_grace_minutes: "Enter a whole number of minutes from 0 to 1440.",
  enforcement_reporting: "Choose what the audit log keeps of the browser extension's reports.",
  allowed_factors: "Allow at least one kind of second factor.",
  require_phishing_resistant: "Requiring a passkey needs passkeys among the allowed factors.",
  "access_control.allowed_domains": "Some entries of the Allowed list were refused: fix the marked ones, then try again.",
  "access_control.blocked_domains": "Some entries of the Blocked list were refused: fix the marked ones, then try again.",
  "access_control.default_action": "Choose whether unlisted sites are allowed or blocked.",
  "action_restrictions.allowed_actions": "Choose only the actions listed.",
};

/**
 * A message for people from a failed AdminService call, chosen by the error's kind and field (never its text).
 * `field` is the request field at fault, to mark, when there is one.
 */
export function describeAdminError(error: unknown, action: AdminAction): { readonly message: string; readonly field: string | null } {
  if (error instanceof StepUpCancelledError) return { message: "Nothing was changed: the console needs you to confirm it is you first.", field: null };
  const { kind, field, retryAfterSeconds } = errorFactsOf(error);
  switch (kind) {
    case "invalid_argument": {
      const listField = field !== null && (field.startsWith("access_control") || field === "policy");
      const words =
        field === null ? undefined : (FIELD_WORDS[field] ?? (listField ? "Some entries were refused: fix the marked ones, then try again." : undefined));
      return { message: words ?? "Something in the request was not accepted. Check the form and try again.", field };
    }
    case "permission_denied":
      if (action === "set-role") return { message: "You cannot change your own role: another admin of this organization can.", field: null };
      return { message: "Your account is not an admin of this organization, so it cannot do that.", field: null };
    case "not_found":
      return { message: "That member or invitation is no longer there. The list is up to date now.", field: null };
    case "rate_limited":
      return {
        message:
          action === "invite"
            ? `Too many emails sent for now. Try again in ${retryAfterSeconds === null ? "a while" : formatWait(retryAfterSeconds)}.`
            : `Too many changes for now. Try again in ${retryAfterSeconds === null ? "a few minutes" : formatWait(retryAfterSeconds)}.`,
        field: null,
      };
    case "email_unavailable":
      return { message: "The email could not be sent just now, so nothing was changed. Try again in a few minutes.", field: null };
    default:
      return { message: describeAuthError(error, "link").message, field: null };
  }
}
