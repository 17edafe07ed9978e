import { recordAudit, recordAuditAlone, recordRefusal, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { definitelyNotSent, GatehouseError, rateLimited } from "../errors.ts";
import { newId } from "../ids.ts";
import { settingsForChallenge, withPasskeyOptions } from "../factors/passkeys/passkeys.ts";
import { isSmsOnly, usableFactors } from "../factors/usable-factors.ts";
import type { MfaChallenge, OrgMfaSettings, User } from "../model.ts";
import { generateOtp, hashOtp } from "../factors/sms/otp.ts";
import { maskPhone } from "../phone.ts";
import type { RateLimitReceipt } from "../ports.ts";
import { consumeAll, rateLimitKeys, refundAll, type NamedLimit } from "../rate-limits/rate-limits.ts";
import type { AuthOutcome, IssuedTokens, MfaFactorOption, MfaRequired, PhoneRequired } from "../results.ts";
import { hashToken } from "../bearer-tokens.ts";
import type { SmsDestination } from "../sms-guard/sms-destination.ts";
import { bucketOf, guardDestination, smsTrafficKeys, VELOCITY_REFUSALS } from "../sms-guard/sms-guard.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface LoginTarget {
  readonly userId: string;
  readonly orgId: string;
  readonly deviceId: string;
  /** For a step-up: the session whose second factor the challenge renews. */
  readonly stepUpSessionId?: string;
  /** The risk engine asked for a phishing-resistant factor (`settingsForChallenge`). */
  readonly phishingResistant?: true;
}

/** What a challenge is for: a replacement (a resend, a code sent on request) is for the same, a step-up included. */
export function targetOf(challenge: MfaChallenge): LoginTarget {
  const { userId, orgId, deviceId, stepUpSessionId, phishingResistant } = challenge;
  return {
    userId,
    orgId,
    deviceId,
    ...(stepUpSessionId === undefined ? {} : { stepUpSessionId }),
    ...(phishingResistant === true ? { phishingResistant } : {}),
  };
}

/** Whom a challenge's events are about. */
function subjectOfTarget(target: LoginTarget, request: RequestMeta | undefined): AuditSubject & { readonly orgId: string } {
  return { actor: { kind: "user", userId: target.userId }, userId: target.userId, orgId: target.orgId, deviceId: target.deviceId, request };
}

/**
 * The pending challenge a new code is asked for (a resend, or a code sent on request): unknown, or not
 * `usable`, it is `invalid_mfa_challenge`; past its expiry, `challenge_expired`.
 */
export async function findPendingChallenge(tx: Context, challengeId: string, usable: (challenge: MfaChallenge) => boolean = () => true): Promise<MfaChallenge> {
  const pending = await tx.stores.challenges.findById(challengeId);
  if (pending === null || !usable(pending)) throw new GatehouseError("invalid_mfa_challenge");
  if (pending.expiresAt <= tx.clock.now()) throw new GatehouseError("challenge_expired");
  return pending;
}

/** Refuses a new code, recorded as a refusal, until `otpResendIntervalMs` after the pending challenge was created. */
export async function refuseEarlyResend(tx: Context, pending: MfaChallenge, request: RequestMeta | undefined): Promise<void> {
  const waitMs = pending.createdAt + tx.config.otpResendIntervalMs - tx.clock.now();
  if (waitMs > 0) throw await recordRefusal(tx, subjectOfTarget(targetOf(pending), request), "otp_resend_interval", rateLimited(waitMs / 1000));
}

/** A challenge a unit of work stored, whose code goes out once that unit has committed (`sendChallenge`). */
export interface PreparedChallenge {
  readonly answer: MfaRequired;
  readonly phone: string;
  readonly otp: string;
  /** The send-limit units it took: given back only when the provider definitely did not send. */
  readonly receipts: readonly RateLimitReceipt[];
  /** Whom the send is recorded for (`otp.sent` or `otp.send_failed`). */
  readonly subject: AuditSubject;
  readonly destination: SmsDestination;
}

/** What Login or Refresh decided inside their unit of work; `completeSignIn` answers with it after the commit. */
export type SignInStep =
  | { readonly kind: "tokens"; readonly tokens: IssuedTokens }
  | { readonly kind: "phone_required"; readonly intent: PhoneRequired }
  /** The user has a factor besides SMS: no code is sent until the client picks SMS (SendMfaCode). */
  | { readonly kind: "mfa_required"; readonly challenge: MfaRequired }
  | { readonly kind: "challenge"; readonly challenge: PreparedChallenge };

/**
 * Every sliding-log limit one text counts against: the phone's, the user's, a step-up's session's, and the
 * platform-wide one of its prefix (the region's: `guardDestination`).
 */
function sendLimits(ctx: Context, target: LoginTarget, phone: string, destination: SmsDestination): readonly NamedLimit[] {
  const { config } = ctx;
  const session = target.stepUpSessionId;
  return [
    { name: "otp_sends_per_phone", key: rateLimitKeys.otpSendsPerPhone(ctx, phone), windows: config.otpSendsPerPhone },
    { name: "otp_sends_per_user", key: rateLimitKeys.otpSendsPerUser(target.userId), windows: config.otpSendsPerUser },
    ...(session === undefined
      ? []
      : [{ name: "otp_sends_per_step_up_session", key: rateLimitKeys.otpSendsPerStepUpSession(session), windows: config.otpSendsPerStepUpSession } as const]),
    { name: "otp_sends_per_prefix", key: rateLimitKeys.otpSendsPerPrefix(ctx, destination.prefix), windows: config.otpSendsPerPrefix },
  ];
}

/**
 * Inside a unit of work: checks the destination (policy, breaker), takes the send limits (every SMS
 * costs money), counts the send and stores a challenge for `phone` (E.164). Its code is sent by
 * `sendChallenge` after the commit, so no transaction waits on the provider. `factors` are the answer's
 * options; `replacing`, a challenge the caller consumed whose id and spent attempts the new one keeps
 * (SendMfaCode gives a code to a challenge that had none).
 */
export async function prepareChallenge(
  tx: Context,
  target: LoginTarget,
  phone: string,
  request: RequestMeta | undefined,
  factors: readonly MfaFactorOption[],
  replacing?: MfaChallenge,
): Promise<PreparedChallenge> {
  if (phone === "") throw new GatehouseError("phone_required_for_mfa");
  const now = tx.clock.now();
  const subject = subjectOfTarget(target, request);
  const destination = await guardDestination(tx, subject, phone);
  const limits = sendLimits(tx, target, phone, destination);
  const taken = await consumeAll(tx.stores.rateLimiter, limits, now);
  if (!taken.allowed) {
    const velocity = VELOCITY_REFUSALS[taken.limit];
    if (velocity !== undefined) tx.smsGuardObserver.refused(velocity);
    throw await recordRefusal(tx, subject, taken.limit, taken.refusal);
  }
  await tx.stores.smsTraffic.add(smsTrafficKeys(destination), bucketOf(now), 1, 0);
  const id = replacing?.id ?? newId(tx.random);
  const otp = generateOtp(tx.random);
  const expiresAt = now + tx.config.challengeTtlMs;
  await tx.stores.challenges.create({
    id,
    ...target,
    phone,
    codeHash: hashOtp(otp, id, tx.config.otpHashKey),
    attempts: replacing?.attempts ?? 0,
    expiresAt,
    createdAt: now,
  });
  // A replacement keeps its id, and with it the WebAuthn challenge it already had.
  const options = replacing === undefined ? await withPasskeyOptions(tx, id, target, expiresAt, factors) : factors;
  const answer = { challengeId: id, phoneMask: maskPhone(phone), resendAfterSeconds: Math.ceil(tx.config.otpResendIntervalMs / 1000), factors: options };
  return { answer, phone, otp, receipts: taken.receipts, subject, destination };
}

/**
 * Sends a prepared challenge's code and records the send once the provider accepted it (a sender
 * that `sendsNothing` by design records nothing: the challenge stands, no code went out). Limits fail
 * closed: a send counts against every limit once unless the sender says the provider definitely did
 * not send it (`SmsSendFailure`); a sender never retries a request that may have been delivered. When
 * the send fails, one unit of work deletes the challenge (none is left that no code can complete),
 * gives back the send's units and its count only if it reached no phone, runs `undo` (what the caller
 * consumed to get here goes back) and records the failure, then `sms_unavailable`.
 */
export async function sendChallenge(ctx: Context, prepared: PreparedChallenge, undo?: (tx: Context) => Promise<void>): Promise<MfaRequired> {
  const { answer, subject, destination } = prepared;
  const chargedAt = ctx.clock.now();
  try {
    await ctx.sms.sendOtp({ phone: prepared.phone, otp: prepared.otp, challengeId: answer.challengeId });
  } catch (error) {
    const notSent = definitelyNotSent(error);
    await inTransaction(ctx, async (tx) => {
      await tx.stores.challenges.delete(answer.challengeId);
      if (notSent) {
        await refundAll(tx.stores.rateLimiter, prepared.receipts);
        await tx.stores.smsTraffic.add(smsTrafficKeys(destination), bucketOf(chargedAt), -1, 0);
      }
      await undo?.(tx);
      await recordAudit(tx, "otp.send_failed", subject, { phoneMask: answer.phoneMask });
    });
    throw new GatehouseError("sms_unavailable");
  }
  if (ctx.sms.sendsNothing !== true) await recordAuditAlone(ctx, "otp.sent", subject, { challengeId: answer.challengeId, phoneMask: answer.phoneMask });
  return answer;
}

/**
 * Inside Login's or Refresh's unit of work, once MFA is required: collect a phone first when the user has no
 * factor the org allows, challenge the phone on file when it is the only one, and otherwise store a challenge
 * with no code yet that any of the user's factors completes (SendMfaCode sends an SMS code on request).
 * `phishingResistant`: the risk engine's decision, which the challenge keeps for every later step.
 */
export async function startSecondFactor(
  tx: Context,
  user: User,
  org: OrgMfaSettings,
  orgId: string,
  deviceId: string,
  request: RequestMeta | undefined,
  phishingResistant = false,
): Promise<SignInStep> {
  const target: LoginTarget = { userId: user.id, orgId, deviceId, ...(phishingResistant ? { phishingResistant } : {}) };
  const subject = subjectOfTarget(target, request);
  await recordAudit(tx, "mfa.required", subject, { phoneMask: user.phone === null ? null : maskPhone(user.phone) });
  const factors = await usableFactors(tx, user, settingsForChallenge(org, target));
  if (factors.length > 0 && !isSmsOnly(factors)) return { kind: "mfa_required", challenge: await storeCodelessChallenge(tx, target, user, factors) };
  // No factor the org allows besides a phone it does not: nothing a phone could be collected for completes MFA.
  if (factors.length === 0 && !org.allowedFactors.includes("sms")) throw new GatehouseError("permission_denied", "no second factor this org allows is set up");
  if (user.phone === null) {
    const now = tx.clock.now();
    const intentId = newId(tx.random);
    // Stored by its hash, as tokens are: whoever reads the database cannot redeem it with a phone of theirs.
    await tx.stores.intents.create({ id: hashToken(intentId), userId: user.id, orgId, deviceId, expiresAt: now + tx.config.intentTtlMs, createdAt: now });
    return { kind: "phone_required", intent: { intentId } };
  }
  return { kind: "challenge", challenge: await prepareChallenge(tx, target, user.phone, request, factors) };
}

/** A challenge no SMS code belongs to yet: its empty code hash matches no code (see `otpMatches`). */
export async function storeCodelessChallenge(tx: Context, target: LoginTarget, user: User, factors: readonly MfaFactorOption[]): Promise<MfaRequired> {
  const now = tx.clock.now();
  const id = newId(tx.random);
  const phone = factors.some((factor) => factor.kind === "sms") ? (user.phone ?? "") : "";
  const expiresAt = now + tx.config.challengeTtlMs;
  await tx.stores.challenges.create({ id, ...target, phone, codeHash: "", attempts: 0, expiresAt, createdAt: now });
  const options = await withPasskeyOptions(tx, id, target, expiresAt, factors);
  return { challengeId: id, phoneMask: phone === "" ? "" : maskPhone(phone), resendAfterSeconds: 0, factors: options };
}

/** After the unit of work committed: sends the code of a challenge step; the other steps are the answer as they are. */
export async function completeSignIn(ctx: Context, step: SignInStep): Promise<AuthOutcome> {
  if (step.kind !== "challenge") return step;
  return { kind: "mfa_required", challenge: await sendChallenge(ctx, step.challenge) };
}

/**
 * For a step that consumed something to get here (an intent, the challenge being replaced): when the
 * send limits or the destination policy refuse, put it back in the same unit of work, so the caller can
 * retry after the wait (or with another number).
 */
export async function restoringOnRefusal<T>(work: () => Promise<T>, restore: () => Promise<void>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GatehouseError && (error.kind === "rate_limited" || error.kind === "invalid_argument")) await restore();
    throw error;
  }
}
