/**
 * Local verification of Gatehouse access JWTs (RFC 9068): signature against the issuer's key set (fetched
 * and cached by jose's remote JWKS, refetched when a token names a key it has not seen), `typ` at+jwt,
 * EdDSA only, issuer and audience exact, expiry with a small clock tolerance, and every claim Gatehouse puts in.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { TokenVerificationError } from "./errors.ts";

export type AssuranceLevel = 1 | 2;

/** What a verified token says about its bearer. */
export interface VerifiedAccess {
  readonly userId: string;
  readonly orgId: string;
  readonly sessionId: string;
  /** How the session authenticated (RFC 8176): `pwd`, then `sms`, `otp`, `rec` or `webauthn`. */
  readonly amr: readonly string[];
  /** 2 when a second factor (or a user-verified passkey) was proved; 1 for a password alone. */
  readonly aal: AssuranceLevel;
  /** The session's last authentication, in epoch milliseconds (a step-up renews it). */
  readonly authTime: number;
  readonly clientId: string;
  /** The token's `exp`, in epoch milliseconds. */
  readonly expiresAt: number;
  /** Every claim, for what the fields above leave out. */
  readonly claims: Readonly<JWTPayload>;
}

export interface VerifierOptions {
  /** Gatehouse's `PUBLIC_URL`, exactly as its tokens' `iss` (and its metadata's `issuer`) say. */
  readonly issuer: string;
  /** This service's URI, as registered with `gatehouse client create NAME --audience URI`. */
  readonly audience: string;
  /** Defaults to `${issuer}/.well-known/jwks.json`. */
  readonly jwksUri?: string;
  /** Seconds of clock difference tolerated on `exp` and `iat`; default 30. */
  readonly clockToleranceSeconds?: number;
  /** How long the key set is kept before it is fetched again; default 10 minutes. */
  readonly jwksCacheMaxAgeMs?: number;
  /** The least time between two fetches of the key set (an unknown kid triggers one); default 30 seconds. */
  readonly jwksCooldownMs?: number;
  /** The time to verify at; defaults to now (tests). */
  readonly now?: () => Date;
}

export interface Verifier {
  /** The bearer's access, or a `TokenVerificationError` saying why not. */
  verify(token: string): Promise<VerifiedAccess>;
}

export const ACR_AAL2 = "urn:gatehouse:aal2";
export const ACR_AAL1 = "urn:gatehouse:aal1";
const REQUIRED_CLAIMS = ["iss", "sub", "aud", "exp", "iat", "jti", "client_id", "sid", "org_id", "acr", "amr", "auth_time"];

export function createVerifier(options: VerifierOptions, keys?: JWTVerifyGetKey): Verifier {
  const issuer = options.issuer.replace(/\/+$/, "");
  const jwks =
    keys ??
    createRemoteJWKSet(new URL(options.jwksUri ?? `${issuer}/.well-known/jwks.json`), {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 10 * 60_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
    });
  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer,
          audience: options.audience,
          typ: "at+jwt",
          algorithms: ["EdDSA"],
          clockTolerance: options.clockToleranceSeconds ?? 30,
          requiredClaims: REQUIRED_CLAIMS,
          ...(options.now === undefined ? {} : { currentDate: options.now() }),
        }));
      } catch (error) {
        throw toVerificationError(error);
      }
      return accessOf(payload);
    },
  };
}

function accessOf(payload: JWTPayload): VerifiedAccess {
  const text = (name: string): string => {
    const value = payload[name];
    if (typeof value !== "string" || value === "") throw new TokenVerificationError("missing_claim", `the "${name}" claim is not a string`);
    return value;
  };
  const { amr, auth_time: authTime, exp } = payload;
  if (!Array.isArray(amr) || !amr.every((value) => typeof value === "string"))
    throw new TokenVerificationError("missing_claim", 'the "amr" claim is not a list');
  if (typeof authTime !== "number") throw new TokenVerificationError("missing_claim", 'the "auth_time" claim is not a number');
  return {
    userId: text("sub"),
    orgId: text("org_id"),
    sessionId: text("sid"),
    amr: amr as string[],
    aal: text("acr") === ACR_AAL2 ? 2 : 1,
    authTime: authTime * 1000,
    clientId: text("client_id"),
    expiresAt: (exp as number) * 1000,
    claims: payload,
  };
}

function toVerificationError(error: unknown): TokenVerificationError {
  if (error instanceof TokenVerificationError) return error;
  const refuse = (code: ConstructorParameters<typeof TokenVerificationError>[0], message: string) =>
    new TokenVerificationError(code, message, { cause: error });
  if (error instanceof errors.JWTExpired) return refuse("expired", "the token has expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return refuse("missing_claim", `the "${error.claim}" claim is missing`);
    switch (error.claim) {
      case "iss":
        return refuse("wrong_issuer", "the token is from another issuer");
      case "aud":
        return refuse("wrong_audience", "the token is for another audience");
      case "typ":
        return refuse("wrong_type", "the token is not an access token (typ at+jwt)");
      case "nbf":
      case "iat":
        return refuse("not_yet_valid", "the token is not valid yet");
      default:
        return refuse("malformed", `the "${error.claim}" claim is invalid`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return refuse("unsupported_algorithm", "the token is not signed with EdDSA");
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return refuse("unknown_key", "no key of the issuer matches the token");
  if (error instanceof errors.JWSSignatureVerificationFailed) return refuse("invalid_signature", "the token's signature does not verify");
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error instanceof TypeError) {
    return refuse("jwks_unavailable", "the issuer's key set could not be fetched");
  }
  if (error instanceof errors.JOSEError) return refuse("malformed", "the token is not a valid JWT");
  return refuse("jwks_unavailable", "the issuer's key set could not be fetched");
}
