import { recordAudit, recordAuditAlone, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import type { CredentialCheck } from "../credential-check.ts";
import { assessDevice, readSignInFactsSeeingDevice } from "../device-assessment.ts";
import { accountDisabled, GatehouseError, rateLimited } from "../errors.ts";
import type { User } from "../model.ts";
import type { RateLimitDecision } from "../ports.ts";
import { rateLimitKeys } from "../rate-limits.ts";
import { DEFAULT_DEVICE_FINGERPRINT, deviceFingerprintOrDefault, requireEmail, requirePassword } from "../input.ts";
import { requireOrgReference, resolveOrgId } from "../org-reference.ts";
import type { AuthOutcome } from "../results.ts";
import { completeSignIn, startSecondFactor } from "../second-factor.ts";
import { issueSession } from "../session-issuer.ts";
import { effectiveSettings } from "../settings.ts";
import { inTransaction } from "../unit-of-work.ts";

export interface LoginInput {
  readonly email: string;
  readonly password: string;
  /** The org's id or its slug (see org-reference.ts). */
  readonly orgId: string;
  readonly deviceFingerprint?: string;
  /** Who is asking (the client IP at the server): password hashes are queued per client. Absent: one shared lane. */
  readonly clientKey?: string;
  /** Recorded with the audit events. */
  readonly request?: RequestMeta;
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

  const user = await ctx.stores.users.findByEmail(email);
  const refused = async () => ({ actor: { kind: "anonymous" }, orgId: await knownOrgId(ctx, orgReference), userId: user?.id, request: input.request }) as const;
  const budget = await takeGuess(ctx, email, user, fingerprint);
  if (!budget.allowed) {
    const retryAfterSeconds = Math.max(1, Math.ceil((budget.retryAt - ctx.clock.now()) / 1000));
    await recordAuditAlone(ctx, "sign_in.throttled", await refused(), { retryAfterSeconds });
    throw rateLimited(retryAfterSeconds);
  }
  if (!(await checkCredentials(user, password, input.clientKey ?? "")) || user === null) {
    await recordAuditAlone(ctx, "sign_in.failed", await refused(), { reason: user === null ? "unknown_email" : "wrong_password" });
    throw new GatehouseError("invalid_credentials");
  }
  // Only after the password matched: to anyone without it, an unverified account looks like any other.
  if (user.emailVerifiedAt === null) {
    const refused = { actor: { kind: "anonymous" }, orgId: await knownOrgId(ctx, orgReference), userId: user.id, request: input.request } as const;
    await recordAuditAlone(ctx, "sign_in.failed", refused, { reason: "email_not_verified" });
    throw new GatehouseError("email_not_verified");
  }

  const step = await inTransaction(ctx, async (tx) => {
    // A right password is no guess: its unit goes back.
    await tx.stores.rateLimiter.refund(budget.receipt);
    const orgId = await resolveOrgId(tx, orgReference);
    const subject = { actor: { kind: "user", userId: user.id }, orgId, userId: user.id, request: input.request } as const;
    const facts = await readSignInFactsSeeingDevice(tx, user.id, orgId, fingerprint);
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
    await recordAudit(tx, "sign_in.succeeded", { ...subject, deviceId: device.id }, { mfaRequired: policy.mfaRequired });
    if (policy.mfaRequired) return startSecondFactor(tx, user, effectiveSettings(facts.settings).org, orgId, device.id, input.request);
    return { kind: "tokens", tokens: await issueSession(tx, user.id, orgId, device.id, input.request, null) } as const;
  });
  return completeSignIn(ctx, step);
}

/**
 * Takes one unit of the guessing budget before the password is checked, so parallel guesses cannot pass
 * it and a right password past it is refused too (fail closed); a right password gives its unit back.
 * A device that had a session for this user spends a budget of its own, so a flood of guesses from
 * elsewhere cannot lock the owner out of a device they used before. Every other sign-in for the email
 * (an unknown email too, so the refusal tells nothing about which emails have accounts) shares one.
 */
async function takeGuess(ctx: Context, email: string, user: User | null, fingerprint: string): Promise<RateLimitDecision> {
  // Every caller that sends no fingerprint is the one default device: it identifies nobody, so it is never known.
  if (fingerprint === DEFAULT_DEVICE_FINGERPRINT) return consumeGuess(ctx, rateLimitKeys.passwordFailuresPerAccount(email));
  // Asked for an unknown email too (no user has the empty id), so both cost the same reads.
  const known = (await ctx.stores.devices.findWithSession(user?.id ?? "", fingerprint)) !== null;
  const key = user !== null && known ? rateLimitKeys.passwordFailuresPerKnownDevice(user.id, fingerprint) : rateLimitKeys.passwordFailuresPerAccount(email);
  return consumeGuess(ctx, key);
}

function consumeGuess(ctx: Context, key: string): Promise<RateLimitDecision> {
  const { limit, windowMs } = ctx.config.passwordFailuresPerAccount;
  return ctx.stores.rateLimiter.consume(key, limit, windowMs, ctx.clock.now());
}

/** The org a refused sign-in named, when it exists: its admins see the refusals. */
async function knownOrgId(ctx: Context, orgReference: string): Promise<string | null> {
  const org = await ctx.stores.orgs.findById(await resolveOrgId(ctx, orgReference));
  return org?.id ?? null;
}
