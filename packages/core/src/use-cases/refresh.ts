import type { Context } from "../context.ts";
import { assessDevice } from "../device-assessment.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { deviceFingerprintOrDefault } from "../input.ts";
import type { AuthOutcome } from "../results.ts";
import { startSecondFactor } from "../second-factor.ts";
import { newTokenPair, toIssuedTokens } from "../session-issuer.ts";
import { hashToken, MAX_TOKEN_LENGTH, REFRESH_TOKEN_PREFIX } from "../tokens.ts";

export interface RefreshInput {
  readonly refreshToken: string;
  readonly deviceFingerprint?: string;
}

const invalidRefresh = () => new GatehouseError("unauthenticated", "invalid or expired refresh token");

/**
 * Rotates the refresh token (atomically, with reuse detection) and, when a device fingerprint is
 * sent, re-evaluates device policy: if MFA is now required the session is revoked and the caller
 * continues as after Login. A user no longer in the org loses the session too.
 */
export async function refresh(ctx: Context, input: RefreshInput): Promise<AuthOutcome> {
  if (input.refreshToken === "") throw invalidArgument("refresh_token", "is required");
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || input.refreshToken.length > MAX_TOKEN_LENGTH) throw invalidRefresh();
  const fingerprint = input.deviceFingerprint?.trim() ? deviceFingerprintOrDefault(input.deviceFingerprint) : null;

  const now = ctx.clock.now();
  const fresh = newTokenPair(ctx);
  const rotation = await ctx.stores.sessions.rotate(hashToken(input.refreshToken), fresh.pair, now);
  if (rotation.kind !== "rotated") throw invalidRefresh();
  const { session } = rotation;

  const [user, membership] = await Promise.all([
    ctx.stores.users.findById(session.userId),
    ctx.stores.orgs.findMembership(session.orgId, session.userId),
  ]);
  if (user === null || membership === null) {
    await ctx.stores.sessions.revoke(session.id, now);
    throw new GatehouseError("not_org_member");
  }

  if (fingerprint !== null) {
    const { device, policy } = await assessDevice(ctx, session.userId, session.orgId, fingerprint);
    if (policy.mfaRequired) {
      await ctx.stores.sessions.revoke(session.id, now);
      return startSecondFactor(ctx, user, session.orgId, device.id);
    }
  }
  return { kind: "tokens", tokens: toIssuedTokens(fresh, session.userId, session.orgId) };
}
