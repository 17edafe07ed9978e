import type { Context } from "../context.ts";
import { GatehouseError, rateLimited } from "../errors.ts";
import { requireId } from "../input.ts";
import type { MfaRequired } from "../results.ts";
import { createChallenge } from "../second-factor.ts";

export interface ResendMfaInput {
  readonly challengeId: string;
}

/**
 * Replaces a pending challenge with a new one (new id, new code) for the same user, org, device
 * and phone. The old challenge is consumed atomically, so two tabs resending at once send one SMS;
 * the new one goes through createChallenge, so the per-phone and per-user send limits apply, and
 * it is refused until `otpResendIntervalMs` after the old one was sent. When the new code cannot
 * be sent (limits, provider down) the old challenge is put back, so the code already received still works.
 */
export async function resendMfa(ctx: Context, input: ResendMfaInput): Promise<MfaRequired> {
  const challengeId = requireId("challenge_id", input.challengeId);
  const now = ctx.clock.now();

  const pending = await ctx.stores.challenges.findById(challengeId);
  if (pending === null) throw new GatehouseError("invalid_mfa_challenge");
  if (pending.expiresAt <= now) throw new GatehouseError("challenge_expired");
  const waitMs = pending.createdAt + ctx.config.otpResendIntervalMs - now;
  if (waitMs > 0) throw rateLimited(waitMs / 1000);

  const replaced = await ctx.stores.challenges.consume(challengeId);
  if (replaced === null) throw new GatehouseError("invalid_mfa_challenge");
  try {
    return await createChallenge(ctx, { userId: replaced.userId, orgId: replaced.orgId, deviceId: replaced.deviceId }, replaced.phone);
  } catch (error) {
    if (error instanceof GatehouseError && (error.kind === "sms_unavailable" || error.kind === "rate_limited")) {
      await ctx.stores.challenges.create(replaced);
    }
    throw error;
  }
}
