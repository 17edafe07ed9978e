import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetailFor } from "@gatehouse/contract";
import { ErrorDetailSchema } from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
import { GatehouseError, type ErrorKind } from "@gatehouse/core";

/** The one table from domain error kinds to wire codes (api.md "Error codes"). */
export const ERROR_CODES: Record<ErrorKind, Code> = {
  invalid_argument: Code.InvalidArgument,
  invalid_credentials: Code.Unauthenticated,
  unauthenticated: Code.Unauthenticated,
  not_org_member: Code.PermissionDenied,
  permission_denied: Code.PermissionDenied,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  phone_required_for_mfa: Code.FailedPrecondition,
  phone_already_verified: Code.FailedPrecondition,
  invalid_mfa_challenge: Code.Unauthenticated,
  invalid_otp: Code.Unauthenticated,
  invalid_mfa_intent: Code.Unauthenticated,
  challenge_expired: Code.FailedPrecondition,
  rate_limited: Code.ResourceExhausted,
  sms_unavailable: Code.Unavailable,
  email_not_verified: Code.FailedPrecondition,
  email_unavailable: Code.Unavailable,
  invalid_link: Code.Unauthenticated,
  storage_unavailable: Code.Unavailable,
  step_up_required: Code.FailedPrecondition,
  risk_blocked: Code.PermissionDenied,
};

export const INTERNAL_MESSAGE = "internal error";

/**
 * Domain errors keep their (secret-free) message; a ConnectError passes through; anything else
 * becomes `Internal` with no detail, since its message may hold anything.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof GatehouseError) {
    const metadata = new Headers();
    if (error.details.retryAfterSeconds !== undefined) metadata.set("retry-after", String(error.details.retryAfterSeconds));
    // The domain side of the error, so clients word it for their users by kind, never by message.
    const detail = { desc: ErrorDetailSchema, value: errorDetailFor(error) };
    return new ConnectError(error.message, ERROR_CODES[error.kind], metadata, [detail]);
  }
  if (error instanceof ConnectError) return error;
  return new ConnectError(INTERNAL_MESSAGE, Code.Internal);
}

export function isUnexpected(error: unknown): boolean {
  return !(error instanceof GatehouseError) && !(error instanceof ConnectError);
}
