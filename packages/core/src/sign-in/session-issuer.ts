import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { newId } from "../ids.ts";
import type { StepUpProof, TokenPair } from "../ports.ts";
import type { IssuedTokens } from "../results.ts";
import { recordSignInNetwork } from "../throttling/sign-in-networks.ts";
import { ACCESS_TOKEN_PREFIX, hashToken, newToken, REFRESH_TOKEN_PREFIX } from "../bearer-tokens.ts";
import { factorOf } from "../factors/registry.ts";
import type { EpochMs, FactorKind, Session } from "../model.ts";

export interface FreshTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly pair: TokenPair;
}

/**
 * Tokens for a session; the refresh token lives the idle lifetime. The session's absolute end caps both
 * expiries: at its creation here (`sessionEnd`), at each rotation in the store.
 */
export function newTokenPair(ctx: Context, sessionEnd = Number.POSITIVE_INFINITY): FreshTokens {
  const now = ctx.clock.now();
  const accessToken = newToken(ACCESS_TOKEN_PREFIX, ctx.random);
  const refreshToken = newToken(REFRESH_TOKEN_PREFIX, ctx.random);
  return {
    accessToken,
    refreshToken,
    pair: {
      accessTokenHash: hashToken(accessToken),
      accessExpiresAt: Math.min(now + ctx.config.accessTokenTtlMs, sessionEnd),
      refreshTokenHash: hashToken(refreshToken),
      refreshExpiresAt: Math.min(now + ctx.config.sessionIdleMs, sessionEnd),
    },
  };
}

/** Whom tokens are for and what their session proved. */
export type TokensOwner = Pick<Session, "userId" | "orgId" | "amr" | "aal">;

export function toIssuedTokens(fresh: FreshTokens, owner: TokensOwner): IssuedTokens {
  const { userId, orgId, amr, aal } = owner;
  return { accessToken: fresh.accessToken, refreshToken: fresh.refreshToken, expiresAt: fresh.pair.accessExpiresAt, userId, orgId, amr, aal };
}

/**
 * What a sign-in proved. `"passkey"`: a user-verified passkey alone (possession plus PIN or biometric, so
 * AAL2); otherwise a password, then (`factor`) the second factor verified at `now`.
 */
export function proofOf(factor: FactorKind | "passkey" | null, now: EpochMs): StepUpProof {
  if (factor === null) return { amr: ["pwd"], aal: 1, mfaAt: null };
  if (factor === "passkey") return { amr: [factorOf("webauthn").amr], aal: 2, mfaAt: now };
  return { amr: ["pwd", factorOf(factor).amr], aal: 2, mfaAt: now };
}

/**
 * A new session for a device; only token hashes are stored. `factor` is the second factor the sign-in
 * verified (null: none was asked; `"passkey"`: a passkey sign-in without a password). The device stops being new and, with `trustedUntil`, is trusted until
 * then in the same write (the caller records `device.trusted`), and the client's network becomes familiar to
 * the account (throttling/sign-in-networks.ts). Recorded as `session.created`.
 */
export async function issueSession(
  tx: Context,
  userId: string,
  orgId: string,
  deviceId: string,
  request: RequestMeta | undefined,
  factor: FactorKind | "passkey" | null,
  trustedUntil?: EpochMs,
): Promise<IssuedTokens> {
  const now = tx.clock.now();
  const expiresAt = now + tx.config.sessionMaxAgeMs;
  const fresh = newTokenPair(tx, expiresAt);
  const sessionId = newId(tx.random);
  const proof = proofOf(factor, now);
  await tx.stores.sessions.create({ id: sessionId, userId, orgId, deviceId, ...fresh.pair, createdAt: now, expiresAt, revokedAt: null, ...proof });
  await tx.stores.devices.markSessionIssued(deviceId, tx.clock.now(), trustedUntil);
  await recordSignInNetwork(tx, userId, request?.clientIp);
  await recordAudit(tx, "session.created", { actor: { kind: "user", userId }, orgId, userId, deviceId, request }, { sessionId });
  return toIssuedTokens(fresh, { userId, orgId, ...proof });
}
