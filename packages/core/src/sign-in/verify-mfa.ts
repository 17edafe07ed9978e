import { settingsForChallenge } from "../factors/passkeys/passkeys.ts";
import { recordAudit, recordRefusal, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import { learnVerifiedSignIn } from "../risk/sign-in-risk.ts";
import { noticeAfterSecondFactor } from "../risk/sign-in-notice.ts";
import type { RiskPolicy } from "../records/risk-policy.ts";
import type { Context } from "../context.ts";
import { devicePolicy } from "./device-assessment.ts";
import { DAY_MS } from "../config.ts";
import { accountDisabled, GatehouseError, rateLimited } from "../errors.ts";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { checkFactor, requireFactorCode } from "../factors/check-factor.ts";
import { requireAuthenticationResponse } from "../factors/passkeys/webauthn.ts";
import { requireId } from "../input.ts";
import { rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { FactorKind, MfaChallenge, User } from "../model.ts";
import { maskPhone } from "../phone.ts";
import type { IssuedTokens } from "../results.ts";
import { issueSession, newTokenPair, proofOf, toIssuedTokens } from "./session-issuer.ts";
import { effectiveSettings } from "../settings.ts";
import { markAudienceToSign } from "../tokens/audience-to-sign.ts";
import { countVerified } from "../sms-guard/sms-guard.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface VerifyMfaInput {
  readonly challengeId: string;
  /** The SMS code, the authenticator app's code or a recovery code, as `factor` says. */
  readonly otp: string;
  /** Absent: SMS, as in the spec. */
  readonly factor?: FactorKind;
  /** For `webauthn`: the `AuthenticationResponseJSON` (then `otp` is ignored). */
  readonly webauthnResponseJson?: string;
  /** Recorded with the audit events. */
  readonly request?: RequestMeta;
}

/**
 * The spec's VerifyMFA rules with the attempt limits of architecture.md. Each verification
 * first claims one of the challenge's attempts atomically, so no concurrency evaluates more
 * guesses than the cap; a wrong code also spends the user's failure budget. The claim holds the
 * challenge until the unit of work ends, and a right code deletes it before the session is
 * issued, so of two correct concurrent calls the second finds it gone and gets no tokens. An
 * expired challenge answers `challenge_expired` and is left exactly as it was, however often it
 * is tried. It is one unit of work: a wrong code's claimed
 * attempt and spent budget commit with the refusal (see `inTransaction`), a right one commits once.
 */
export async function verifyMfa(ctx: Context, input: VerifyMfaInput): Promise<IssuedTokens> {
  const challengeId = requireId("challenge_id", input.challengeId);
  const factor = input.factor ?? "sms";
  const answer: FactorAnswer =
    factor === "webauthn"
      ? { code: "", passkey: requireAuthenticationResponse("webauthn_response_json", input.webauthnResponseJson ?? "") }
      : { code: requireFactorCode(factor, input.otp) };
  const verified = await inTransaction(ctx, (tx) => verifyAndIssue(tx, challengeId, factor, answer, input.request));
  if (verified.signedIn !== null) await noticeAfterSecondFactor(ctx, verified.signedIn.user, verified.signedIn.orgId, verified.signedIn.riskPolicy);
  return verified.tokens;
}

/** The tokens, and for a sign-in (not a step-up) whose it is: its notice goes after the unit of work. */
interface Verified {
  readonly tokens: IssuedTokens;
  readonly signedIn: { readonly user: User; readonly orgId: string; readonly riskPolicy: RiskPolicy | null } | null;
}

/** What the caller sent for the factor: a code, or a passkey's assertion. */
interface FactorAnswer {
  readonly code: string;
  readonly passkey?: AuthenticationResponseJSON;
}

/** Whom a challenge's events are about: its user, org and device, with the request. */
function subjectOf(challenge: MfaChallenge, request: RequestMeta | undefined): AuditSubject {
  return { actor: { kind: "user", userId: challenge.userId }, orgId: challenge.orgId, userId: challenge.userId, deviceId: challenge.deviceId, request };
}

async function verifyAndIssue(tx: Context, challengeId: string, factor: FactorKind, answer: FactorAnswer, request: RequestMeta | undefined): Promise<Verified> {
  const { stores, config } = tx;

  const now = tx.clock.now();
  const claimed = await stores.challenges.claimAttempt(challengeId, config.otpAttemptsPerChallenge, now);
  if (claimed === null) {
    // Expiry is part of the claim's guard, so an expired challenge is never charged an attempt.
    const unclaimed = await stores.challenges.findById(challengeId);
    if (unclaimed !== null && unclaimed.expiresAt <= now) {
      await recordAudit(tx, "mfa.failed", subjectOf(unclaimed, request), { challengeId, reason: "challenge_expired" });
      throw new GatehouseError("challenge_expired");
    }
    await recordAudit(tx, "mfa.failed", { actor: { kind: "anonymous" }, request }, { challengeId, reason: "unknown_challenge" });
    throw new GatehouseError("invalid_mfa_challenge");
  }
  const subject = subjectOf(claimed, request);

  // A step-up's wrong codes count for its session: whoever holds a session, stolen or not, must not be able
  // to spend the owner's budget and lock them out of their sign-ins. One session guesses no faster.
  const budgetKey =
    claimed.stepUpSessionId === undefined
      ? rateLimitKeys.otpFailuresPerUser(claimed.userId)
      : rateLimitKeys.otpFailuresPerStepUpSession(claimed.stepUpSessionId);
  const { limit, windowMs } = config.otpFailuresPerUser;
  const budget = await stores.rateLimiter.consume(budgetKey, limit, windowMs, now);
  if (!budget.allowed) {
    // No answer was checked, so the challenge keeps its attempts for when the budget lifts.
    await stores.challenges.releaseAttempt(claimed.id);
    throw await recordRefusal(tx, subject, "otp_failures_per_user", rateLimited((budget.retryAt - now) / 1000));
  }

  const facts = await stores.signInFacts.read(claimed.userId, claimed.orgId, claimed.deviceId);
  if (facts === null) throw new GatehouseError("invalid_mfa_challenge");
  const org = settingsForChallenge(effectiveSettings(facts.settings).org, claimed);
  const check = await checkFactor(tx, claimed, facts.user, org, factor, answer.code, answer.passkey);
  if (!check.matched) {
    if (claimed.attempts >= config.otpAttemptsPerChallenge) {
      await stores.challenges.delete(claimed.id);
      await recordAudit(tx, "mfa.locked_out", subject, { challengeId, attempts: claimed.attempts });
      // The last try: the challenge itself is now at fault, so the client can say the attempts are used up
      // and offer only a new sign-in. It tells nothing an attacker did not do himself.
      throw new GatehouseError("invalid_otp", undefined, { field: "challenge_id" });
    }
    await recordAudit(tx, "mfa.failed", subject, { challengeId, reason: "wrong_otp" });
    throw new GatehouseError("invalid_otp");
  }
  await stores.rateLimiter.refund(budget.receipt);
  await stores.challenges.delete(claimed.id);
  await countVerified(tx, claimed.phone);

  const { user, membership, device } = facts;
  if (membership === null) throw new GatehouseError("not_org_member");
  if (device === null) throw new GatehouseError("invalid_mfa_challenge");
  if (user.disabledAt != null) throw accountDisabled();
  // Only an SMS code proves the phone; another factor leaves it as it was.
  const phoneLocked = factor === "sms" && (await lockPhone(tx, user, claimed.phone));
  const policy = devicePolicy(tx, effectiveSettings(facts.settings), device, "mfa");

  await recordAudit(tx, "mfa.verified", subject, { challengeId, factor });
  if (check.recoveryCodesLeft !== undefined) await recordAudit(tx, "recovery_code.used", subject, { left: check.recoveryCodesLeft });
  if (phoneLocked) await recordAudit(tx, "phone.verified", subject, { phoneMask: maskPhone(claimed.phone) });
  // Reached with another factor only by a user who holds no passkey (see `factorsAllowedFor`).
  const enrol = org.requirePhishingResistant && factor !== "webauthn" ? { passkeyEnrollmentRequired: true } : {};
  if (claimed.stepUpSessionId !== undefined) {
    return { tokens: markAudienceToSign({ ...(await stepUp(tx, claimed.stepUpSessionId, factor, subject)), ...enrol }, org.accessJwtAudience), signedIn: null };
  }
  const trustedUntil = policy.registerTrustAfterMfa ? now + policy.trustTtlDays * DAY_MS : undefined;
  const riskPolicy = await learnVerifiedSignIn(tx, user.id, claimed.orgId, request);
  const tokens = await issueSession(tx, user.id, claimed.orgId, device.id, request, factor, trustedUntil);
  if (trustedUntil !== undefined) await recordAudit(tx, "device.trusted", subject, { trustedUntil: new Date(trustedUntil).toISOString() });
  return { tokens: markAudienceToSign({ ...tokens, ...enrol }, org.accessJwtAudience), signedIn: { user, orgId: claimed.orgId, riskPolicy } };
}

/**
 * A step-up (StartStepUp) renews the second factor of the session it was started for: the session records
 * the factor and when, and gets new tokens (the ones it held stop working). A session that ended meanwhile
 * gets nothing.
 */
async function stepUp(tx: Context, sessionId: string, factor: FactorKind, subject: AuditSubject): Promise<IssuedTokens> {
  const now = tx.clock.now();
  // The store caps the expiries at the session's absolute end.
  const fresh = newTokenPair(tx);
  const stepped = await tx.stores.sessions.recordStepUp(sessionId, proofOf(factor, now), fresh.pair, now);
  if (stepped === null) throw new GatehouseError("unauthenticated");
  await recordAudit(tx, "session.stepped_up", subject, { sessionId, factor });
  return { ...toIssuedTokens(fresh, stepped), expiresAt: stepped.accessExpiresAt };
}

/**
 * The phone a challenge was sent to proves the second factor only if it is the user's phone:
 * the verified one, or, for the first MFA, the one this verification locks. A challenge to any
 * other phone (a second intent raced with the first) is refused with the invalid-challenge answer.
 * True when this verification locked the phone.
 */
async function lockPhone(ctx: Context, user: User, phone: string): Promise<boolean> {
  if (user.phoneVerified) {
    if (user.phone !== phone) throw new GatehouseError("invalid_mfa_challenge");
    return false;
  }
  if (await ctx.stores.users.setVerifiedPhone(user.id, phone)) return true;
  const locked = await ctx.stores.users.findById(user.id);
  if (locked?.phone !== phone) throw new GatehouseError("invalid_mfa_challenge");
  return false;
}
