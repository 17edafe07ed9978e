/**
 * RFC 9068 access JWTs: the claims a session's token carries, signing, and the checks a verifier makes
 * (the same ones @gatehouse/verify makes, so introspection and local verification agree).
 */
import { jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { AssuranceLevel, EpochMs, Session } from "../model.ts";
import type { OpenedSigningKey } from "./key-material.ts";
import { SIGNING_ALG } from "../records/tokens.ts";

/** RFC 9068 §2.1's media type, in the `typ` header. */
export const ACCESS_JWT_TYP = "at+jwt";
/** The `client_id` of tokens a session's bearer asks for itself (AuthService.IssueAccessJwt): Gatehouse's own client. */
export const SESSION_CLIENT_ID = "gatehouse";

/** The `acr` of each assurance level: what `acr_values` in an RFC 9470 challenge names. */
export const ACR_OF_AAL: Readonly<Record<AssuranceLevel, string>> = { 1: "urn:gatehouse:aal1", 2: "urn:gatehouse:aal2" };

export interface AccessJwtClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string;
  readonly exp: number;
  readonly iat: number;
  readonly jti: string;
  readonly client_id: string;
  readonly sid: string;
  readonly org_id: string;
  readonly acr: string;
  readonly amr: readonly string[];
  readonly auth_time: number;
}

export interface ClaimsInput {
  readonly issuer: string;
  readonly audience: string;
  readonly clientId: string;
  readonly session: Session;
  readonly jti: string;
  readonly now: EpochMs;
  readonly ttlMs: number;
}

const seconds = (ms: EpochMs): number => Math.floor(ms / 1000);

/**
 * The claims of a token for `session`. `auth_time` is the session's last authentication: its second factor's
 * time when it proved one (a step-up renews it), its creation otherwise. The token expires with the
 * session's access, refresh or absolute end if that comes first.
 */
export function accessJwtClaims(input: ClaimsInput): AccessJwtClaims {
  const { session, now } = input;
  const expiresAt = Math.min(now + input.ttlMs, session.expiresAt, session.refreshExpiresAt);
  return {
    iss: input.issuer,
    sub: session.userId,
    aud: input.audience,
    exp: seconds(expiresAt),
    iat: seconds(now),
    jti: input.jti,
    client_id: input.clientId,
    sid: session.id,
    org_id: session.orgId,
    acr: ACR_OF_AAL[session.aal],
    amr: [...session.amr],
    auth_time: seconds(Math.max(session.createdAt, session.mfaAt ?? 0)),
  };
}

export function signAccessJwt(claims: AccessJwtClaims, key: OpenedSigningKey): Promise<string> {
  return new SignJWT({ ...claims, amr: [...claims.amr] })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_JWT_TYP, kid: key.record.kid })
    .sign(key.privateKey);
}

/** A compact JWS by its shape (three base64url parts): anything else is not worth a signature check. */
export function looksLikeJwt(token: string, maxLength: number): boolean {
  return token.length <= maxLength && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

export interface VerifyOptions {
  readonly issuer: string;
  /** The stored keys (jose's local key set, built once per reading of the keys: it keeps their imports). */
  readonly keys: JWTVerifyGetKey;
  readonly now: EpochMs;
  readonly clockSkewMs: number;
}

/**
 * The token's claims and the kid that signed it when its signature is one of `keys`' with EdDSA, its `typ` is
 * at+jwt, its issuer is ours and it has not expired, and it carries every claim Gatehouse puts in; null
 * otherwise. The audience, and whether the key is still published, are the caller's to check.
 */
export async function verifyAccessJwt(token: string, options: VerifyOptions): Promise<{ claims: AccessJwtClaims; kid: string } | null> {
  try {
    const { payload, protectedHeader } = await jwtVerify(token, options.keys, {
      issuer: options.issuer,
      typ: ACCESS_JWT_TYP,
      algorithms: [SIGNING_ALG],
      currentDate: new Date(options.now),
      clockTolerance: Math.floor(options.clockSkewMs / 1000),
      requiredClaims: ["sub", "aud", "exp", "iat", "jti", "client_id", "sid", "org_id", "acr", "amr", "auth_time"],
    });
    const claims = asClaims(payload);
    return claims === null || protectedHeader.kid === undefined ? null : { claims, kid: protectedHeader.kid };
  } catch {
    return null;
  }
}

function asClaims(payload: JWTPayload): AccessJwtClaims | null {
  const { iss, sub, aud, exp, iat, jti, client_id, sid, org_id, acr, amr, auth_time } = payload;
  const strings = [iss, sub, aud, jti, client_id, sid, org_id, acr];
  if (!strings.every((value) => typeof value === "string")) return null;
  if (![exp, iat, auth_time].every((value) => typeof value === "number")) return null;
  if (!Array.isArray(amr) || !amr.every((value) => typeof value === "string")) return null;
  return {
    iss: iss as string,
    sub: sub as string,
    aud: aud as string,
    exp: exp as number,
    iat: iat as number,
    jti: jti as string,
    client_id: client_id as string,
    sid: sid as string,
    org_id: org_id as string,
    acr: acr as string,
    amr: amr as string[],
    auth_time: auth_time as number,
  };
}
