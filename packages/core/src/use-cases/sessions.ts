import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { Principal } from "../results.ts";
import { ACCESS_TOKEN_PREFIX, hashToken, MAX_TOKEN_LENGTH } from "../tokens.ts";

/** Resolves a bearer access token to its principal; every call looks the session up, so revocation is immediate. */
export async function authenticate(ctx: Context, accessToken: string): Promise<Principal> {
  requireAccessTokenShape(accessToken);
  const session = await ctx.stores.sessions.findActiveByAccessTokenHash(hashToken(accessToken), ctx.clock.now());
  if (session === null) throw new GatehouseError("unauthenticated");
  return { userId: session.userId, orgId: session.orgId, sessionId: session.id };
}

/** A string that cannot be an access token is refused before any store is asked. */
export function requireAccessTokenShape(accessToken: string): void {
  if (!accessToken.startsWith(ACCESS_TOKEN_PREFIX) || accessToken.length > MAX_TOKEN_LENGTH) throw new GatehouseError("unauthenticated");
}

/** Revokes the session and drops the user's half-done logins, so nobody else can finish them. */
export async function logout(ctx: Context, principal: Principal): Promise<void> {
  await ctx.stores.sessions.revoke(principal.sessionId, ctx.clock.now());
  await Promise.all([ctx.stores.challenges.deleteByUser(principal.userId), ctx.stores.intents.deleteByUser(principal.userId)]);
}
