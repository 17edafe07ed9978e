import { recordAudit, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { DAY_MS } from "../config.ts";
import { assessDevice, readSignInFactsSeeingDevice } from "./device-assessment.ts";
import { accountDisabled, GatehouseError, rateLimited } from "../errors.ts";
import { acceptAssertion } from "../factors/passkeys/passkeys.ts";
import { authenticationOptionsJson, newWebAuthnChallenge, requireAuthenticationResponse } from "../factors/passkeys/webauthn.ts";
import { newId } from "../ids.ts";
import { deviceFingerprintOrDefault, requireId } from "../input.ts";
import { requireOrgReference, resolveOrgId } from "../authorization/org-reference.ts";
import { rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { IssuedTokens } from "../results.ts";
import { issueSession } from "./session-issuer.ts";
import { effectiveSettings } from "../settings.ts";
import { markAudienceToSign } from "../tokens/audience-to-sign.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { readFailureVelocity } from "../risk/failure-velocity.ts";
import { judgeSignIn, learnSignIn, riskEventOf } from "../risk/sign-in-risk.ts";
import { noticeSignIn } from "../risk/sign-in-notice.ts";

export interface StartPasskeySignInInput {
  /** The org's id or its slug. */
  readonly orgId: string;
  readonly request?: RequestMeta;
}

export interface PasskeySignInChallenge {
  readonly challengeId: string;
  /** `PublicKeyCredentialRequestOptionsJSON`: any discoverable credential, user verification required. */
  readonly webauthnOptionsJson: string;
}

export interface FinishPasskeySignInInput {
  readonly challengeId: string;
  readonly webauthnResponseJson: string;
  readonly deviceFingerprint?: string;
  readonly request?: RequestMeta;
}

const DISABLED = "passkey sign-in is not enabled for this organization";

/**
 * Request options for a sign-in with a passkey and no password, in an org whose `passkey_sign_in` is on (an
 * unknown org is answered the same as one where it is off). Each call stores a challenge, so calls are
 * limited per client IP (`passkeySignInsPerClient`).
 */
export async function startPasskeySignIn(ctx: Context, input: StartPasskeySignInInput): Promise<PasskeySignInChallenge> {
  const orgReference = requireOrgReference(input.orgId);
  const now = ctx.clock.now();
  const clientIp = input.request?.clientIp;
  // An embedder's own call names no client: it is not limited here, as its audit events are not.
  if (clientIp !== undefined) {
    const { limit, windowMs } = ctx.config.passkeySignInsPerClient;
    const taken = await ctx.stores.rateLimiter.consume(rateLimitKeys.passkeySignInsPerClient(clientIp), limit, windowMs, now);
    if (!taken.allowed) throw rateLimited((taken.retryAt - now) / 1000);
  }
  const orgId = await resolveOrgId(ctx, orgReference);
  const org = await ctx.stores.orgs.findById(orgId);
  const settings = effectiveSettings(await ctx.stores.settings.getForOrg(orgId)).org;
  if (org === null || !settings.passkeySignIn) throw new GatehouseError("permission_denied", DISABLED);
  const challengeId = newId(ctx.random);
  const challenge = newWebAuthnChallenge(ctx.random);
  await ctx.stores.webauthnChallenges.put({
    id: challengeId,
    ceremony: "sign_in",
    userId: null,
    orgId,
    challenge,
    label: "",
    expiresAt: now + ctx.config.challengeTtlMs,
    createdAt: now,
  });
  return { challengeId, webauthnOptionsJson: await authenticationOptionsJson(ctx.config.webauthn, challenge, undefined) };
}

/**
 * A user-verified assertion over StartPasskeySignIn's challenge (consumed first, whatever the answer) signs
 * in the passkey's owner: multi-factor by itself, so the session is AAL2 with `amr` ["webauthn"]. Then the
 * rules of Login after the password: a verified email, an enabled account, membership of the org, the org's
 * `passkey_sign_in`; the device is recorded and trusted after this MFA as the org's policy says. Every
 * refusal of the passkey itself answers as a wrong password.
 */
export async function finishPasskeySignIn(ctx: Context, input: FinishPasskeySignInInput): Promise<IssuedTokens> {
  const challengeId = requireId("challenge_id", input.challengeId);
  const response = requireAuthenticationResponse("webauthn_response_json", input.webauthnResponseJson);
  const fingerprint = deviceFingerprintOrDefault(input.deviceFingerprint);
  const signedIn = await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const ceremony = await tx.stores.webauthnChallenges.consume(challengeId, "sign_in", now);
    if (ceremony === null) throw new GatehouseError("invalid_mfa_challenge");
    const orgId = ceremony.orgId;
    const factor = await tx.stores.passkeys.findByCredentialId(response.id);
    const anonymous: AuditSubject = { actor: { kind: "anonymous" }, orgId, userId: factor?.userId, request: input.request };
    if (factor === null) {
      await recordAudit(tx, "sign_in.failed", anonymous, { reason: "passkey_refused" });
      throw new GatehouseError("invalid_credentials");
    }
    // No failure budget of its owner's is spent: a signature cannot be guessed, and the credential id a
    // forged answer names is no secret (every MFA challenge lists it), so a budget would let anyone lock
    // the owner out of every factor. StartPasskeySignIn's per-client limit bounds the attempts.
    if (!(await acceptAssertion(tx, factor, response, ceremony.challenge, true, anonymous))) {
      await recordAudit(tx, "sign_in.failed", anonymous, { reason: "passkey_refused" });
      throw new GatehouseError("invalid_credentials");
    }

    const subject: AuditSubject = { actor: { kind: "user", userId: factor.userId }, orgId, userId: factor.userId, request: input.request };
    const facts = await readSignInFactsSeeingDevice(tx, factor.userId, orgId, fingerprint, input.request);
    if (facts === null) throw new GatehouseError("invalid_credentials");
    const refuse = async (
      reason: "email_not_verified" | "user_disabled" | "not_org_member" | "passkey_sign_in_disabled" | "risk_blocked",
      error: GatehouseError,
    ) => {
      await recordAudit(tx, "sign_in.failed", subject, { reason });
      return error;
    };
    if (facts.user.emailVerifiedAt === null) throw await refuse("email_not_verified", new GatehouseError("email_not_verified"));
    if (facts.user.disabledAt != null) throw await refuse("user_disabled", accountDisabled());
    if (facts.membership === null) throw await refuse("not_org_member", new GatehouseError("not_org_member"));
    if (!effectiveSettings(facts.settings).org.passkeySignIn) {
      throw await refuse("passkey_sign_in_disabled", new GatehouseError("permission_denied", DISABLED));
    }
    // The user is known only from the passkey, inside the unit of work: the engine runs here. A passkey is
    // itself the strongest second factor, so of the risk decisions only a block changes anything; the password
    // failures against the account and from the address are read all the same, so the event says so.
    const velocity = await readFailureVelocity(tx, facts.user.email, input.request?.clientIp);
    const judged = await judgeSignIn(tx, factor.userId, orgId, input.request, { velocity });
    const event = judged === null ? null : riskEventOf(tx, judged, factor.userId, orgId);
    if (event !== null) await tx.stores.risk.appendEvent(event);
    if (judged?.applied === "block") throw await refuse("risk_blocked", new GatehouseError("risk_blocked"));
    if (judged !== null) await learnSignIn(tx, factor.userId, judged.observation);
    const { device, policy } = assessDevice(tx, facts);
    const deviceSubject = { ...subject, deviceId: device.id };
    await recordAudit(tx, "sign_in.succeeded", deviceSubject, { mfaRequired: false });
    await recordAudit(tx, "mfa.verified", deviceSubject, { challengeId, factor: "webauthn" });
    const trustedUntil = policy.registerTrustAfterMfa ? now + policy.trustTtlDays * DAY_MS : undefined;
    const tokens = await issueSession(tx, factor.userId, orgId, device.id, input.request, "passkey", trustedUntil);
    if (trustedUntil !== undefined) await recordAudit(tx, "device.trusted", deviceSubject, { trustedUntil: new Date(trustedUntil).toISOString() });
    return { tokens: markAudienceToSign(tokens, effectiveSettings(facts.settings).org.accessJwtAudience), user: facts.user, judged, event };
  });
  if (signedIn.judged !== null && signedIn.event !== null) await noticeSignIn(ctx, signedIn.user, signedIn.judged.policy, signedIn.event);
  return signedIn.tokens;
}
