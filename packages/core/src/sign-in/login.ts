import { recordAudit, recordAuditAlone, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import type { CredentialCheck } from "../password-checks/credential-check.ts";
import { assessDevice, readSignInFactsSeeingDevice } from "./device-assessment.ts";
import { requireLinkTokenHash } from "../email/email-links.ts";
import { accountDisabled, GatehouseError } from "../errors.ts";
import { deviceFingerprintOrDefault, requireEmail, requirePassword } from "../input.ts";
import { checkGuess, takeSignInGuess } from "../password-checks/password-guesses.ts";
import { refundAll } from "../rate-limits/rate-limits.ts";
import { requireOrgReference, resolveOrgId } from "../authorization/org-reference.ts";
import type { AuthOutcome } from "../results.ts";
import { completeSignIn, startSecondFactor } from "./second-factor.ts";
import { issueSession } from "./session-issuer.ts";
import { effectiveSettings } from "../settings.ts";
import { markAudienceToSign } from "../tokens/audience-to-sign.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { isCommonPassword } from "../passwords/password-rules.ts";
import { refundFailureVelocity, takeFailureVelocity } from "../risk/failure-velocity.ts";
import { judgeSignIn, learnSignIn, riskAsksSecondFactor, riskEventOf, type JudgedSignIn } from "../risk/sign-in-risk.ts";
import { noticeSignIn } from "../risk/sign-in-notice.ts";
import type { RiskEvent } from "../records/risk-event.ts";

export interface LoginInput {
  readonly email: string;
  readonly password: string;
  /** The org's id or its slug (see org-reference.ts). */
  readonly orgId: string;
  readonly deviceFingerprint?: string;
  /** Who is asking (the client IP at the server): password hashes are queued per client. Absent: one shared lane. */
  readonly clientKey?: string;
  /** The token of an emailed unblock link: lets the owner past the account's guessing ceiling once (docs/security.md, G4). */
  readonly unblockToken?: string;
  /** Recorded with the audit events; its client IP names the network whose guessing budget the sign-in spends. */
  readonly request?: RequestMeta;
  /** The round-trip time the client measured to the server, in milliseconds, for the risk engine. */
  readonly rttMs?: number;
}

/**
 * The spec's Login rules, in order, behind the account's guessing budget. The password hash runs before
 * the unit of work, the SMS after it, so the transaction holds its locks for store calls only. The OTP
 * never appears in the outcome.
 */
export async function login(ctx: Context, checkCredentials: CredentialCheck, input: LoginInput): Promise<AuthOutcome> {
  const email = requireEmail(input.email);
  const password = requirePassword(input.password);
  const orgReference = requireOrgReference(input.orgId);
  const fingerprint = deviceFingerprintOrDefault(input.deviceFingerprint);
  const unblockTokenHash = input.unblockToken ? requireLinkTokenHash("unblock_token", input.unblockToken) : undefined;

  const user = await ctx.stores.users.findByEmail(email);
  const refused = async () => ({ actor: { kind: "anonymous" }, orgId: await knownOrgId(ctx, orgReference), userId: user?.id, request: input.request }) as const;
  const budget = await takeSignInGuess(ctx, { email, user, fingerprint, clientIp: input.request?.clientIp, unblockTokenHash });
  if (!budget.allowed) {
    const retryAfterSeconds = budget.refusal.details?.retryAfterSeconds ?? 1;
    await recordAuditAlone(ctx, "sign_in.throttled", await refused(), { retryAfterSeconds });
    throw budget.refusal;
  }
  const velocity = await takeFailureVelocity(ctx, email, input.request?.clientIp);
  // The engine only reads and scores, so it runs while the password hash does (from when the hash queue lets the
  // check in: a check that waits or is refused costs it nothing), off the sign-in's wait. Its answer counts only
  // once the password matched; a refused sign-in never looks at it, nor at its failure.
  let judging: Promise<JudgedSignIn | null> = Promise.resolve(null);
  const judge = () => {
    if (user === null) return;
    const proof = { rttMs: input.rttMs, commonPassword: isCommonPassword(password), velocity: velocity.velocity };
    judging = resolveOrgId(ctx, orgReference).then((orgId) => judgeSignIn(ctx, user.id, orgId, input.request, proof));
    judging.catch(() => {});
  };
  let matched: boolean;
  try {
    matched = await checkGuess(ctx, checkCredentials, budget.receipts, user, password, input.clientKey ?? "", judge);
  } catch (error) {
    await refundFailureVelocity(ctx, velocity);
    throw error;
  }
  if (matched && user !== null) await refundFailureVelocity(ctx, velocity);
  if (!matched || user === null) {
    await recordAuditAlone(ctx, "sign_in.failed", await refused(), { reason: user === null ? "unknown_email" : "wrong_password" });
    throw new GatehouseError("invalid_credentials");
  }
  // Only after the password matched: to anyone without it, an unverified account looks like any other.
  if (user.emailVerifiedAt === null) {
    const refused = { actor: { kind: "anonymous" }, orgId: await knownOrgId(ctx, orgReference), userId: user.id, request: input.request } as const;
    await recordAuditAlone(ctx, "sign_in.failed", refused, { reason: "email_not_verified" });
    throw new GatehouseError("email_not_verified");
  }

  // Scored before the unit of work, so the transaction holds its locks for writes only.
  const judged = await judging;

  let event: RiskEvent | null = null;
  const step = await inTransaction(ctx, async (tx) => {
    // A right password is no guess: its units go back. An unblock link it passed the ceiling with is used up.
    await refundAll(tx.stores.rateLimiter, budget.receipts);
    if (budget.unblock !== null && (await tx.stores.emailTokens.consume(budget.unblock.tokenHash, "unblock_sign_in", tx.clock.now())) === null) {
      throw budget.unblock.refusal;
    }
    const orgId = await resolveOrgId(tx, orgReference);
    const subject = { actor: { kind: "user", userId: user.id }, orgId, userId: user.id, request: input.request } as const;
    const facts = await readSignInFactsSeeingDevice(tx, user.id, orgId, fingerprint, input.request);
    // Told only to a caller who proved the password, so it reveals nothing to anyone else.
    if (facts !== null && facts.user.disabledAt != null) {
      await recordAudit(tx, "sign_in.failed", { ...subject, orgId: null }, { reason: "user_disabled" });
      throw accountDisabled();
    }
    if (facts === null || facts.membership === null) {
      const known = (await tx.stores.orgs.findById(orgId)) !== null;
      await recordAudit(tx, "sign_in.failed", { ...subject, orgId: known ? orgId : null }, { reason: known ? "not_org_member" : "unknown_org" });
      throw new GatehouseError("not_org_member");
    }
    const { device, policy } = assessDevice(tx, facts);
    event = judged === null ? null : riskEventOf(tx, judged, user.id, orgId);
    if (event !== null) await tx.stores.risk.appendEvent(event);
    // A GatehouseError still commits the unit of work: the event and the refusal stay recorded.
    if (judged?.applied === "block") {
      await recordAudit(tx, "sign_in.failed", { ...subject, deviceId: device.id }, { reason: "risk_blocked" });
      throw new GatehouseError("risk_blocked");
    }
    // The risk decision only ever raises what the MFA policy asks: a trusted device does not spare it.
    const mfaRequired = policy.mfaRequired || riskAsksSecondFactor(judged);
    await recordAudit(tx, "sign_in.succeeded", { ...subject, deviceId: device.id }, { mfaRequired });
    if (mfaRequired) {
      const phishingResistant = judged?.applied === "phishing_resistant";
      return startSecondFactor(tx, user, effectiveSettings(facts.settings).org, orgId, device.id, input.request, phishingResistant);
    }
    if (judged !== null) await learnSignIn(tx, user.id, judged.observation);
    const tokens = await issueSession(tx, user.id, orgId, device.id, input.request, null);
    return { kind: "tokens", tokens: markAudienceToSign(tokens, effectiveSettings(facts.settings).org.accessJwtAudience) } as const;
  });
  // Only a sign-in that got its session now: one that asks for a second factor is told of after it (verify-mfa.ts).
  if (step.kind === "tokens" && judged !== null && event !== null) await noticeSignIn(ctx, user, judged.policy, event);
  return completeSignIn(ctx, step);
}

/** The org a refused sign-in named, when it exists: its admins see the refusals. */
async function knownOrgId(ctx: Context, orgReference: string): Promise<string | null> {
  const org = await ctx.stores.orgs.findById(await resolveOrgId(ctx, orgReference));
  return org?.id ?? null;
}
