import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { Principal } from "../results.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { ACCESS_TOKEN_PREFIX, hashToken, MAX_TOKEN_LENGTH } from "../bearer-tokens.ts";

/** Resolves a bearer access token to its principal; every call looks the session up, so revocation is immediate. */
export async function authenticate(ctx: Context, accessToken: string): Promise<Principal> {
  requireAccessTokenShape(accessToken);
  const session = await ctx.stores.sessions.findActiveByAccessTokenHash(hashToken(accessToken), ctx.clock.now());
  if (session === null) throw new GatehouseError("unauthenticated");
  const { userId, orgId, deviceId, amr, aal, mfaAt } = session;
  return { userId, orgId, sessionId: session.id, deviceId, amr, aal, mfaAt };
}

/** A string that cannot be an access token is refused before any store is asked. */
export function requireAccessTokenShape(accessToken: string): void {
  if (!accessToken.startsWith(ACCESS_TOKEN_PREFIX) || accessToken.length > MAX_TOKEN_LENGTH) throw new GatehouseError("unauthenticated");
}

/** Revokes the session and drops the user's half-done logins, so nobody else can finish them; one unit of work. */
export async function logout(ctx: Context, principal: Principal, request?: RequestMeta): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const revoked = await tx.stores.sessions.revoke(principal.sessionId, tx.clock.now());
    await Promise.all([tx.stores.challenges.deleteByUser(principal.userId), tx.stores.intents.deleteByUser(principal.userId)]);
    if (revoked) {
      const subject = { actor: { kind: "user", userId: principal.userId }, orgId: principal.orgId, userId: principal.userId, request } as const;
      await recordAudit(tx, "session.revoked", subject, { reason: "logout", sessionId: principal.sessionId, count: 1 });
    }
  });
}
