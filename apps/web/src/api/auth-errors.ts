import { Code, ConnectError } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { formatWait } from "../format-wait.ts";

/** Which form the error came from; the same kind reads differently on each. */
export type AuthStep = "login" | "register" | "phone" | "otp" | "app-code" | "recovery-code" | "passkey" | "passkey-sign-in" | "resend" | "link";

/** A wrong code, in the words of the factor it was typed for. */
const WRONG_CODE: Readonly<Record<"otp" | "app-code" | "recovery-code" | "passkey", string>> = {
  otp: "That code is not right, or it has expired. Check it, or send a new code.",
  "app-code": "That code is not right. Enter the code your authenticator app shows now.",
  "recovery-code": "That recovery code is not right, or it was already used.",
  passkey: "That passkey was not accepted for this account. Try it again, or choose another way.",
};

const isCodeStep = (step: AuthStep): step is keyof typeof WRONG_CODE => step in WRONG_CODE;

/** A failure in the user's words, and the form field it belongs to (null: the form as a whole). */
export interface AuthProblem {
  readonly message: string;
  readonly field: string | null;
  /** For rate limits: seconds until a retry can succeed. */
  readonly retryAfterSeconds: number | null;
  /** The code step is over (its attempts are used up): only starting over can work. */
  readonly challengeSpent?: true;
}

const FIELD_MESSAGES: Record<string, string> = {
  email: "Enter a valid email address, like name@example.com.",
  org_id: "Enter your organization's short name, like acme. It has only letters, digits and hyphens.",
  phone: "Enter a phone number with 10 to 15 digits, for example +15551234567.",
  otp: "Enter the 6-digit code from the text message.",
  display_name: "Use at most 100 characters for your display name.",
};

const UNREACHABLE = "The service could not be reached. Check your connection and try again.";

const PASSWORD_RULES =
  "Choose a password of at least 8 characters that is not a common one, not only spaces or one character repeated, and does not contain your email's name.";

function invalidArgument(field: string | null, step: AuthStep): AuthProblem {
  if (field === "password" || field === "new_password") {
    const message = step === "register" || step === "link" || field === "new_password" ? PASSWORD_RULES : "Enter your password.";
    return { message, field, retryAfterSeconds: null };
  }
  if (field === "current_password") return { message: "That is not your current password.", field, retryAfterSeconds: null };
  if (field === "token") return formProblem("This link is not complete. Open it again from the email.");
  if (field === "otp" && (step === "app-code" || step === "recovery-code")) return formProblem(WRONG_CODE[step], field);
  const message = field === null ? undefined : FIELD_MESSAGES[field];
  if (message !== undefined) return { message, field, retryAfterSeconds: null };
  return { message: "This sign-in attempt can no longer be used. Start over.", field: null, retryAfterSeconds: null };
}

function rateLimited(retryAfterSeconds: number | null, step: AuthStep): AuthProblem {
  const wait = retryAfterSeconds === null ? "a few minutes" : formatWait(retryAfterSeconds);
  const message = step === "resend" ? `You can ask for a new code in ${wait}.` : `Too many attempts. Try again in ${wait}.`;
  return { message, field: null, retryAfterSeconds };
}

const formProblem = (message: string, field: string | null = null): AuthProblem => ({ message, field, retryAfterSeconds: null });

const SPENT: AuthProblem = {
  message: "That code is not right either, and it was the last try: this code can no longer be used. Start over to get a new one.",
  field: null,
  retryAfterSeconds: null,
  challengeSpent: true,
};

/**
 * A message for people from a failed AuthService call, chosen by the error's domain kind (and
 * field) from its ErrorDetail, never by its message text. Every kind is named, so a new one does
 * not compile until it is worded. Without a detail (the request never reached the service) the
 * wire code tells an unreachable service from anything else.
 */
export function describeAuthError(error: unknown, step: AuthStep): AuthProblem {
  const { kind, field, retryAfterSeconds } = errorFactsOf(error);
  switch (kind) {
    case "invalid_argument":
      return invalidArgument(field, step);
    case "invalid_credentials":
      return formProblem(
        step === "passkey-sign-in"
          ? "That passkey was not accepted. Use a passkey of this account, or sign in with your password."
          : "The email or password is incorrect.",
      );
    case "not_org_member":
      return formProblem("This account is not a member of that organization. Check the organization's short name.", "org_id");
    case "already_exists":
      return formProblem("An account with this email already exists. Sign in instead.", "email");
    case "invalid_mfa_intent":
      return formProblem("This sign-in attempt has expired. Start over.");
    case "invalid_mfa_challenge":
    case "invalid_otp":
      if (step === "passkey-sign-in") return formProblem("This passkey sign-in has expired. Try again.");
      // `challenge_id` at fault: that wrong code used the challenge's last attempt (see verify-mfa.ts).
      if (field === "challenge_id") return SPENT;
      return step === "resend"
        ? { ...formProblem("This sign-in attempt has expired. Start over."), challengeSpent: true }
        : formProblem(WRONG_CODE[isCodeStep(step) ? step : "otp"], "otp");
    case "challenge_expired":
      return formProblem("This code has expired. Start over to get a new one.");
    case "phone_already_verified":
      return formProblem("This account already has a phone number. Start over to sign in.");
    case "rate_limited":
      return rateLimited(retryAfterSeconds, step);
    case "sms_unavailable":
      return formProblem("We could not send the text message just now. Try again in a moment.");
    case "email_not_verified":
      return formProblem("Confirm your email address first: open the link we emailed you. No email? Use “Forgot password?” to get a new link.");
    case "email_unavailable":
      return formProblem("We could not send the email just now. Try again in a moment.");
    case "invalid_link":
      return formProblem("This link has expired or was already used. Ask for a new one.");
    case "storage_unavailable":
      return formProblem("The service is unavailable just now. Try again in a moment.");
    case "step_up_required":
      return formProblem("Confirm it is you with your second factor first.");
    case "risk_blocked":
      return formProblem("Your organization does not allow sign-in from here. Ask its administrator if you think this is wrong.");
    case "unknown":
      return formProblem(isUnreachable(error) ? UNREACHABLE : "Something went wrong. Try again.");
    case "permission_denied":
      if (step === "passkey-sign-in")
        return formProblem("This organization does not allow passkey sign-in, or your account cannot sign in to it. Sign in with your password.");
      return formProblem("Something went wrong. Try again.");
    case "unauthenticated":
    case "not_found":
    case "phone_required_for_mfa":
      return formProblem("Something went wrong. Try again.");
  }
}

function isUnreachable(error: unknown): boolean {
  const { code } = ConnectError.from(error);
  return code === Code.Unavailable || code === Code.Unknown || code === Code.Internal || code === Code.DeadlineExceeded || code === Code.Canceled;
}
