import type { Context } from "./context.ts";
import { newId } from "./ids.ts";
import type { TokenPair } from "./ports.ts";
import type { IssuedTokens } from "./results.ts";
import { ACCESS_TOKEN_PREFIX, hashToken, newToken, REFRESH_TOKEN_PREFIX } from "./tokens.ts";

export interface FreshTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly pair: TokenPair;
}

export function newTokenPair(ctx: Context): FreshTokens {
  const now = ctx.clock.now();
  const accessToken = newToken(ACCESS_TOKEN_PREFIX, ctx.random);
  const refreshToken = newToken(REFRESH_TOKEN_PREFIX, ctx.random);
  return {
    accessToken,
    refreshToken,
    pair: {
      accessTokenHash: hashToken(accessToken),
      accessExpiresAt: now + ctx.config.accessTokenTtlMs,
      refreshTokenHash: hashToken(refreshToken),
      refreshExpiresAt: now + ctx.config.refreshTokenTtlMs,
    },
  };
}

export function toIssuedTokens(fresh: FreshTokens, userId: string, orgId: string): IssuedTokens {
  return { accessToken: fresh.accessToken, refreshToken: fresh.refreshToken, expiresAt: fresh.pair.accessExpiresAt, userId, orgId };
}

/** A new session for a device; only token hashes are stored. The device stops being new. */
export async function issueSession(ctx: Context, userId: string, orgId: string, deviceId: string): Promise<IssuedTokens> {
  const fresh = newTokenPair(ctx);
  await ctx.stores.sessions.create({
    id: newId(ctx.random),
    userId,
    orgId,
    deviceId,
    ...fresh.pair,
    createdAt: ctx.clock.now(),
    revokedAt: null,
  });
  await ctx.stores.devices.markSessionIssued(deviceId, ctx.clock.now());
  return toIssuedTokens(fresh, userId, orgId);
}
