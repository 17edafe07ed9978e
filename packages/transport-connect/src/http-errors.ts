import { Code } from "@connectrpc/connect";

/**
 * HTTP status and snake_case name per wire code for the JSON routes (api.md). Connect's own
 * table is marked private, so the JSON routes keep theirs here. FailedPrecondition is 412.
 */
export const HTTP_ERRORS: Record<Code, { readonly status: number; readonly name: string }> = {
  [Code.Canceled]: { status: 499, name: "canceled" },
  [Code.Unknown]: { status: 500, name: "unknown" },
  [Code.InvalidArgument]: { status: 400, name: "invalid_argument" },
  [Code.DeadlineExceeded]: { status: 504, name: "deadline_exceeded" },
  [Code.NotFound]: { status: 404, name: "not_found" },
  [Code.AlreadyExists]: { status: 409, name: "already_exists" },
  [Code.PermissionDenied]: { status: 403, name: "permission_denied" },
  [Code.ResourceExhausted]: { status: 429, name: "resource_exhausted" },
  [Code.FailedPrecondition]: { status: 412, name: "failed_precondition" },
  [Code.Aborted]: { status: 409, name: "aborted" },
  [Code.OutOfRange]: { status: 400, name: "out_of_range" },
  [Code.Unimplemented]: { status: 501, name: "unimplemented" },
  [Code.Internal]: { status: 500, name: "internal" },
  [Code.Unavailable]: { status: 503, name: "unavailable" },
  [Code.DataLoss]: { status: 500, name: "data_loss" },
  [Code.Unauthenticated]: { status: 401, name: "unauthenticated" },
};
