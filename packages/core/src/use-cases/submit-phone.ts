import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { requireId, requirePhone } from "../input.ts";
import type { MfaRequired } from "../results.ts";
import { createChallenge } from "../second-factor.ts";

export interface SubmitPhoneInput {
  readonly intentId: string;
  readonly phone: string;
}

/**
 * Consumes the one-time intent and challenges the submitted phone. When the challenge cannot be
 * sent (rate limit, provider down) the intent is put back, so the caller can retry instead of
 * logging in again.
 */
export async function submitPhoneAndRequestMfa(ctx: Context, input: SubmitPhoneInput): Promise<MfaRequired> {
  const intentId = requireId("intent_id", input.intentId);
  const phone = await requirePhone(input.phone, ctx.config.phoneDefaultRegion);

  const intent = await ctx.stores.intents.consume(intentId, ctx.clock.now());
  if (intent === null) throw new GatehouseError("invalid_mfa_intent");
  const user = await ctx.stores.users.findById(intent.userId);
  if (user === null) throw new GatehouseError("invalid_mfa_intent");
  if (user.phoneVerified) throw new GatehouseError("phone_already_verified");
  if ((await ctx.stores.orgs.findMembership(intent.orgId, intent.userId)) === null) throw new GatehouseError("not_org_member");

  try {
    return await createChallenge(ctx, { userId: intent.userId, orgId: intent.orgId, deviceId: intent.deviceId }, phone);
  } catch (error) {
    if (error instanceof GatehouseError && (error.kind === "sms_unavailable" || error.kind === "rate_limited")) {
      await ctx.stores.intents.create(intent);
    }
    throw error;
  }
}
