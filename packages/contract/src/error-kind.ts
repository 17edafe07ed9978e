/**
 * The domain side of an error, on the wire: `gatehouse.v1.ErrorDetail`, attached to every Connect /
 * gRPC error for a domain failure, and its JSON form beside `code` and `message` on the JSON routes.
 * Clients branch on the kind (and field), never on the code plus a guess or on the message text.
 */
import { create } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema, type ErrorDetail } from "./gen/gatehouse/v1/errors_pb.ts";
import { asObject } from "./json-values.ts";

/** Every domain error kind (the core's closed `ErrorKind` union; a test holds the two equal). */
export const ERROR_KINDS = Object.freeze([
  "invalid_argument",
  "invalid_credentials",
  "unauthenticated",
  "not_org_member",
  "permission_denied",
  "not_found",
  "already_exists",
  "phone_required_for_mfa",
  "phone_already_verified",
  "invalid_mfa_challenge",
  "invalid_otp",
  "invalid_mfa_intent",
  "challenge_expired",
  "rate_limited",
  "sms_unavailable",
  "email_not_verified",
  "email_unavailable",
  "invalid_link",
  "storage_unavailable",
  "step_up_required",
  "risk_blocked",
] as const);

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** What a client branches on: a domain kind, or "unknown" (no detail, as when the request never reached the service, or a kind this client does not know). */
export interface ErrorFacts {
  readonly kind: ErrorKind | "unknown";
  /** The request field at fault ("email", "org_id", …); null when no single field is. */
  readonly field: string | null;
  /** For rate limits: seconds until a retry can succeed; null otherwise. */
  readonly retryAfterSeconds: number | null;
}

/** A domain error as the server holds it (the core's `GatehouseError` has this shape). */
export interface DomainError {
  readonly kind: ErrorKind;
  readonly details: { readonly field?: string; readonly retryAfterSeconds?: number };
}

/** The detail's JSON form on the JSON routes; unset fields are left out. */
export interface ErrorDetailJson {
  kind: string;
  field?: string;
  retry_after_seconds?: number;
}

/**
 * Kinds the wire must not tell apart: a wrong code and an unknown challenge already share one code
 * and message (no probing which challenge ids exist), so they share one kind too.
 */
const WIRE_KIND: Partial<Record<ErrorKind, ErrorKind>> = { invalid_otp: "invalid_mfa_challenge" };

const isErrorKind = (value: string): value is ErrorKind => (ERROR_KINDS as readonly string[]).includes(value);

export function errorDetailFor(error: DomainError): ErrorDetail {
  return create(ErrorDetailSchema, {
    kind: WIRE_KIND[error.kind] ?? error.kind,
    field: error.details.field ?? "",
    retryAfterSeconds: error.details.retryAfterSeconds ?? 0,
  });
}

function factsOf(kind: unknown, field: unknown, retryAfterSeconds: unknown): ErrorFacts {
  return {
    kind: typeof kind === "string" && isErrorKind(kind) ? kind : "unknown",
    field: typeof field === "string" && field !== "" ? field : null,
    retryAfterSeconds: typeof retryAfterSeconds === "number" && retryAfterSeconds > 0 ? retryAfterSeconds : null,
  };
}

/** Reads the ErrorDetail of a failed call (anything thrown: a ConnectError, a fetch failure, …). */
export function errorFactsOf(error: unknown): ErrorFacts {
  const [detail] = ConnectError.from(error).findDetails(ErrorDetailSchema);
  return factsOf(detail?.kind, detail?.field, detail?.retryAfterSeconds);
}

export function errorDetailToJson(detail: ErrorDetail): ErrorDetailJson {
  return {
    kind: detail.kind,
    ...(detail.field === "" ? {} : { field: detail.field }),
    ...(detail.retryAfterSeconds === 0 ? {} : { retry_after_seconds: detail.retryAfterSeconds }),
  };
}

/** Reads the detail of a JSON route's error body (`{"error": {code, message, kind, field, retry_after_seconds}}`), leniently. */
export function errorFactsFromJson(body: unknown): ErrorFacts {
  const error = asObject(asObject(body)?.error) ?? {};
  return factsOf(error.kind, error.field, error.retry_after_seconds);
}
