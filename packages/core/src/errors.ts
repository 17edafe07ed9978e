/**
 * Every failure the core reports is a `GatehouseError` with a `kind` from this closed union.
 * Transports map kinds to wire codes in one table; nothing compares message strings.
 */
export type ErrorKind =
  | "invalid_argument"
  | "invalid_credentials"
  | "unauthenticated"
  | "not_org_member"
  | "permission_denied"
  | "not_found"
  | "already_exists"
  | "phone_required_for_mfa"
  | "phone_already_verified"
  | "invalid_mfa_challenge"
  | "invalid_otp"
  | "invalid_mfa_intent"
  | "challenge_expired"
  | "rate_limited"
  | "sms_unavailable"
  | "email_not_verified"
  | "email_unavailable"
  | "invalid_link"
  | "storage_unavailable"
  /** The call needs a second factor verified more recently in this session (StartStepUp, then VerifyMFA). */
  | "step_up_required"
  /** The org's risk policy refused the sign-in (a country outside its geo-fence, a denied network, a score past its block threshold). */
  | "risk_blocked";

/** The messages of the spec's error table, verbatim, plus ours where it is silent. */
const defaultMessages: Record<ErrorKind, string> = {
  invalid_argument: "invalid argument",
  invalid_credentials: "invalid email or password",
  unauthenticated: "invalid or expired session",
  not_org_member: "not a member of this organization",
  permission_denied: "you do not have permission for this operation",
  not_found: "not found",
  already_exists: "already exists",
  phone_required_for_mfa: "phone number required for MFA; add in profile",
  phone_already_verified: "phone number already verified for this user",
  invalid_mfa_challenge: "invalid or expired MFA challenge",
  invalid_otp: "invalid or expired MFA challenge",
  invalid_mfa_intent: "invalid or expired MFA intent",
  challenge_expired: "MFA challenge expired",
  rate_limited: "too many attempts",
  sms_unavailable: "SMS delivery is unavailable; try again later",
  email_not_verified: "email not verified",
  email_unavailable: "email delivery is unavailable; try again later",
  invalid_link: "invalid or expired link",
  storage_unavailable: "the service is unavailable; try again later",
  step_up_required: "step-up required",
  risk_blocked: "sign-in refused by the organization's risk policy",
};

export interface ErrorDetails {
  /** The request field at fault, for `invalid_argument`; `challenge_id` on the `invalid_otp` that used a challenge's last attempt. */
  readonly field?: string;
  /** When a rate-limited caller may try again. */
  readonly retryAfterSeconds?: number;
  /** One message per rejected entry, for bulk validation (policy lists). */
  readonly violations?: readonly string[];
}

export class GatehouseError extends Error {
  override readonly name = "GatehouseError";
  readonly kind: ErrorKind;
  readonly details: ErrorDetails;

  /** `message` must never contain a password, OTP, hash or token. */
  constructor(kind: ErrorKind, message: string = defaultMessages[kind], details: ErrorDetails = {}) {
    super(message);
    this.kind = kind;
    this.details = details;
  }
}

export function invalidArgument(field: string, problem: string, violations?: readonly string[]): GatehouseError {
  return new GatehouseError("invalid_argument", `${field}: ${problem}`, violations ? { field, violations } : { field });
}

export function rateLimited(retryAfterSeconds: number): GatehouseError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new GatehouseError("rate_limited", `too many attempts; retry in ${seconds} s`, { retryAfterSeconds: seconds });
}

/** A disabled account's answer, given only to a caller who proved its password (or holds its session). */
export function accountDisabled(): GatehouseError {
  return new GatehouseError("permission_denied", "this account is disabled");
}

export function isGatehouseError(error: unknown): error is GatehouseError {
  return error instanceof GatehouseError;
}

/** True only for a send's rejection that says nothing went out (`SmsSendFailure`): its limit units may be given back. */
export function definitelyNotSent(error: unknown): boolean {
  return typeof error === "object" && error !== null && "mayHaveBeenSent" in error && error.mayHaveBeenSent === false;
}
