/**
 * RFC 9470 step-up: a route that needs a second factor, or a recent one, answers a bearer whose token lacks
 * it with 401 and `WWW-Authenticate: Bearer error="insufficient_user_authentication"`, naming the `acr_values`
 * and `max_age` to get; the client steps up with Gatehouse (StartStepUp, VerifyMFA), asks for a new JWT and
 * retries. RFC 6750 `invalid_token` answers a token that does not verify at all.
 */
import type { TokenVerificationError } from "./errors.ts";
import { ACR_AAL1, ACR_AAL2, type AssuranceLevel, type VerifiedAccess } from "./verifier.ts";

export interface AssuranceRequirement {
  /** The least assurance level; default 1. */
  readonly aal?: AssuranceLevel;
  /** At most this many seconds since the session's last authentication. */
  readonly maxAge?: number;
}

/** What to answer instead of the resource. */
export interface BearerChallenge {
  readonly status: 401 | 503;
  readonly wwwAuthenticate: string;
}

/** null when `access` meets the requirement at `nowMs`; otherwise the RFC 9470 challenge to answer. */
export type AssuranceCheck = (access: VerifiedAccess, nowMs?: number) => BearerChallenge | null;

export function requireAssurance(requirement: AssuranceRequirement): AssuranceCheck {
  const aal = requirement.aal ?? 1;
  const { maxAge } = requirement;
  if (maxAge !== undefined && (!Number.isInteger(maxAge) || maxAge < 0)) throw new RangeError("maxAge is a whole number of seconds ≥ 0");
  return (access, nowMs = Date.now()) => {
    const tooWeak = access.aal < aal;
    const tooOld = maxAge !== undefined && nowMs - access.authTime > maxAge * 1000;
    if (!tooWeak && !tooOld) return null;
    const params = [
      'error="insufficient_user_authentication"',
      `error_description="${tooWeak ? "a second factor is required" : "a more recent authentication is required"}"`,
      `acr_values="${aal === 2 ? ACR_AAL2 : ACR_AAL1}"`,
      ...(maxAge === undefined ? [] : [`max_age=${maxAge}`]),
    ];
    return { status: 401, wwwAuthenticate: `Bearer ${params.join(", ")}` };
  };
}

/** The answer to a missing or refused token: RFC 6750's `invalid_token`, or a 503 while the key set cannot be fetched. */
export function invalidTokenChallenge(error?: TokenVerificationError): BearerChallenge {
  if (error?.code === "jwks_unavailable") return { status: 503, wwwAuthenticate: "Bearer" };
  if (error === undefined) return { status: 401, wwwAuthenticate: "Bearer" };
  return { status: 401, wwwAuthenticate: `Bearer error="invalid_token", error_description="${error.message}"` };
}

/** The token of an `Authorization: Bearer …` header; null when there is none. */
export function bearerToken(authorization: string | null | undefined): string | null {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization?.trim() ?? "");
  return match === null ? null : match[1]!;
}
