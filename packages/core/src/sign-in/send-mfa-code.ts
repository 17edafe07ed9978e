import { settingsForChallenge } from "../factors/passkeys/passkeys.ts";
import type { RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { usableFactors } from "../factors/usable-factors.ts";
import { requireId } from "../input.ts";
import type { MfaRequired } from "../results.ts";
import { findPendingChallenge, prepareChallenge, refuseEarlyResend, restoringOnRefusal, sendChallenge, targetOf } from "./second-factor.ts";
import { effectiveSettings } from "../settings.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface SendMfaCodeInput {
  readonly challengeId: string;
  /** Recorded with the audit events. */
  readonly request?: RequestMeta;
}

/**
 * A user with other factors than SMS chose "text me a code": the challenge Login stored without a code gets
 * one, under the same send limits as any send. The challenge keeps its id and its spent attempts (a new
 * code buys no new guesses); a code sent already is replaced only after the resend interval. A challenge
 * whose user has no phone, or whose org does not allow SMS, is answered as an unknown challenge.
 */
export async function sendMfaCode(ctx: Context, input: SendMfaCodeInput): Promise<MfaRequired> {
  const challengeId = requireId("challenge_id", input.challengeId);

  const { pending, prepared } = await inTransaction(ctx, async (tx) => {
    const pending = await findPendingChallenge(tx, challengeId, (challenge) => challenge.phone !== "");
    // A challenge Login stored without a code has sent nothing yet: its first code is no resend.
    if (pending.codeHash !== "") await refuseEarlyResend(tx, pending, input.request);

    const facts = await tx.stores.signInFacts.read(pending.userId, pending.orgId, null);
    if (facts === null || facts.user.phone !== pending.phone) throw new GatehouseError("invalid_mfa_challenge");
    const factors = await usableFactors(tx, facts.user, settingsForChallenge(effectiveSettings(facts.settings).org, pending));
    if (!factors.some((factor) => factor.kind === "sms")) throw new GatehouseError("invalid_mfa_challenge");

    if ((await tx.stores.challenges.consume(challengeId)) === null) throw new GatehouseError("invalid_mfa_challenge");
    const prepared = await restoringOnRefusal(
      () => prepareChallenge(tx, targetOf(pending), pending.phone, input.request, factors, pending),
      () => tx.stores.challenges.create(pending),
    );
    return { pending, prepared };
  });
  return sendChallenge(ctx, prepared, (tx) => tx.stores.challenges.create(pending));
}
