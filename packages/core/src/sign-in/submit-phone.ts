import type { RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { requireId, requirePhone } from "../input.ts";
import { maskPhone } from "../phone.ts";
import type { MfaRequired } from "../results.ts";
import { prepareChallenge, restoringOnRefusal, sendChallenge } from "./second-factor.ts";
import { hashToken } from "../bearer-tokens.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface SubmitPhoneInput {
  readonly intentId: string;
  readonly phone: string;
  /** Recorded with the audit events. */
  readonly request?: RequestMeta;
}

/**
 * Consumes the one-time intent and challenges the submitted phone, in one unit of work; the code is
 * sent after it commits. When the challenge cannot be sent (rate limit, provider down) the intent is
 * put back, so the caller can retry instead of logging in again.
 */
export async function submitPhoneAndRequestMfa(ctx: Context, input: SubmitPhoneInput): Promise<MfaRequired> {
  const intentId = requireId("intent_id", input.intentId);
  const phone = await requirePhone(input.phone, ctx.config.phoneDefaultRegion);

  const { intent, prepared } = await inTransaction(ctx, async (tx) => {
    const intent = await tx.stores.intents.consume(hashToken(intentId), tx.clock.now());
    if (intent === null) throw new GatehouseError("invalid_mfa_intent");
    const user = await tx.stores.users.findById(intent.userId);
    if (user === null) throw new GatehouseError("invalid_mfa_intent");
    if (user.phoneVerified) throw new GatehouseError("phone_already_verified");
    if ((await tx.stores.orgs.findMembership(intent.orgId, intent.userId)) === null) throw new GatehouseError("not_org_member");
    const target = { userId: intent.userId, orgId: intent.orgId, deviceId: intent.deviceId };
    const prepared = await restoringOnRefusal(
      () => prepareChallenge(tx, target, phone, input.request, [{ kind: "sms", label: maskPhone(phone) }]),
      () => tx.stores.intents.create(intent),
    );
    return { intent, prepared };
  });
  return sendChallenge(ctx, prepared, (tx) => tx.stores.intents.create(intent));
}
