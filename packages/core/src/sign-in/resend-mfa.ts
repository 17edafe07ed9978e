import { settingsForChallenge } from "../factors/passkeys/passkeys.ts";
import type { RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { requireId } from "../input.ts";
import type { MfaChallenge } from "../model.ts";
import { maskPhone } from "../phone.ts";
import { usableFactors } from "../factors/usable-factors.ts";
import type { MfaFactorOption, MfaRequired } from "../results.ts";
import { effectiveSettings } from "../settings.ts";
import { findPendingChallenge, prepareChallenge, refuseEarlyResend, restoringOnRefusal, sendChallenge, targetOf } from "./second-factor.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface ResendMfaInput {
  readonly challengeId: string;
  /** Recorded with the audit events. */
  readonly request?: RequestMeta;
}

/**
 * Replaces a pending challenge with a new one (new id, new code) for the same user, org, device
 * and phone, in one unit of work; the code is sent after it commits. The old challenge is consumed
 * atomically, so two tabs resending at once send one SMS; the new one is prepared like any other, so
 * the per-phone and per-user send limits apply, and it is refused until `otpResendIntervalMs` after the
 * old one was sent. When the new code cannot be sent (limits, provider down) the old challenge is put
 * back, so the code already received still works.
 */
export async function resendMfa(ctx: Context, input: ResendMfaInput): Promise<MfaRequired> {
  const challengeId = requireId("challenge_id", input.challengeId);

  const { replaced, prepared } = await inTransaction(ctx, async (tx) => {
    await refuseEarlyResend(tx, await findPendingChallenge(tx, challengeId), input.request);
    const replaced = await tx.stores.challenges.consume(challengeId);
    if (replaced === null) throw new GatehouseError("invalid_mfa_challenge");
    const factors = await factorsOf(tx, replaced);
    const prepared = await restoringOnRefusal(
      () => prepareChallenge(tx, targetOf(replaced), replaced.phone, input.request, factors),
      () => tx.stores.challenges.create(replaced),
    );
    return { replaced, prepared };
  });
  return sendChallenge(ctx, prepared, (tx) => tx.stores.challenges.create(replaced));
}

/**
 * The answer lists what the user can use now, as Login's did. SubmitPhone's challenge texts a phone that
 * is not the user's until its code is verified: its resend lists that phone, as SubmitPhone's answer did.
 */
async function factorsOf(tx: Context, challenge: MfaChallenge): Promise<MfaFactorOption[]> {
  const facts = await tx.stores.signInFacts.read(challenge.userId, challenge.orgId, null);
  if (facts === null) throw new GatehouseError("invalid_mfa_challenge");
  if (facts.user.phone === null && challenge.phone !== "") return [{ kind: "sms", label: maskPhone(challenge.phone) }];
  return usableFactors(tx, facts.user, settingsForChallenge(effectiveSettings(facts.settings).org, challenge));
}
