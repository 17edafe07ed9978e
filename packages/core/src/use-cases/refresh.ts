import type { Context } from "../context.ts";
import { assessDevice } from "../device-assessment.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { deviceFingerprintOrDefault, requirePlainText } from "../input.ts";
import type { RefreshRotation } from "../ports.ts";
import { openSuccessor, sealSuccessor } from "../refresh-successor.ts";
import type { AuthOutcome, IssuedTokens } from "../results.ts";
import { startSecondFactor } from "../second-factor.ts";
import { newTokenPair, toIssuedTokens, type FreshTokens } from "../session-issuer.ts";
import { hashToken, MAX_TOKEN_LENGTH, REFRESH_TOKEN_PREFIX } from "../tokens.ts";

export interface RefreshInput {
  readonly refreshToken: string;
  readonly deviceFingerprint?: string;
}

const invalidRefresh = () => new GatehouseError("unauthenticated", "invalid or expired refresh token");

/** The tokens a rotation hands out: the fresh pair, or, for a replay within the reuse interval, the sealed successor. */
function tokensOf(rotation: RefreshRotation, fresh: FreshTokens, oldRefreshToken: string): IssuedTokens {
  if (rotation.kind === "rotated") return toIssuedTokens(fresh, rotation.session.userId, rotation.session.orgId);
  if (rotation.kind !== "replayed") throw invalidRefresh();
  const successor = openSuccessor(oldRefreshToken, rotation.sealedSuccessor);
  if (successor === null) throw invalidRefresh();
  const { session } = rotation;
  return { ...successor, expiresAt: session.accessExpiresAt, userId: session.userId, orgId: session.orgId };
}

/**
 * Rotates the refresh token (atomically, with reuse detection) and, when a device fingerprint is
 * sent, re-evaluates device policy: if MFA is now required the session is revoked and the caller
 * continues as after Login. A user no longer in the org loses the session too. Within the reuse
 * interval a replay of the just-rotated token gets the same successor tokens (a second tab, a
 * response lost in a crash) and passes the same checks; after it, reuse revokes the session.
 */
export async function refresh(ctx: Context, input: RefreshInput): Promise<AuthOutcome> {
  if (input.refreshToken === "") throw invalidArgument("refresh_token", "is required");
  requirePlainText("refresh_token", input.refreshToken);
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || input.refreshToken.length > MAX_TOKEN_LENGTH) throw invalidRefresh();
  const fingerprint = input.deviceFingerprint?.trim() ? deviceFingerprintOrDefault(input.deviceFingerprint) : null;

  const now = ctx.clock.now();
  const fresh = newTokenPair(ctx);
  const replay = { sealedSuccessor: sealSuccessor(input.refreshToken, fresh, ctx.random), reuseIntervalMs: ctx.config.refreshReuseIntervalMs };
  const rotation = await ctx.stores.sessions.rotate(hashToken(input.refreshToken), fresh.pair, now, replay);
  if (rotation.kind !== "rotated" && rotation.kind !== "replayed") throw invalidRefresh();
  const { session } = rotation;
  const tokens = tokensOf(rotation, fresh, input.refreshToken);

  const [user, membership] = await Promise.all([ctx.stores.users.findById(session.userId), ctx.stores.orgs.findMembership(session.orgId, session.userId)]);
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
    await ctx.stores.devices.markSessionIssued(device.id, now);
  }
  return { kind: "tokens", tokens };
}
