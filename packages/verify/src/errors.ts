/** Why a token was refused; each is a 401 with `error="invalid_token"` (RFC 6750) but `jwks_unavailable`, a 503. */
export type TokenErrorCode =
  | "malformed"
  | "unsupported_algorithm"
  | "unknown_key"
  | "invalid_signature"
  | "wrong_type"
  | "wrong_issuer"
  | "wrong_audience"
  | "expired"
  | "not_yet_valid"
  | "missing_claim"
  | "jwks_unavailable";

export class TokenVerificationError extends Error {
  readonly code: TokenErrorCode;
  constructor(code: TokenErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TokenVerificationError";
    this.code = code;
  }
}

export function isTokenVerificationError(error: unknown): error is TokenVerificationError {
  return error instanceof TokenVerificationError;
}
