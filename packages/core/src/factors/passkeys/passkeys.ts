import { recordAudit, type AuditSubject } from "../../audit/record.ts";
import type { Context } from "../../context.ts";
import type { EpochMs, MfaChallenge, OrgMfaSettings, User, WebAuthnFactor } from "../../model.ts";
import type { MfaFactorOption } from "../../results.ts";
import { authenticationOptionsJson, counterMovedForward, newWebAuthnChallenge, verifyAssertion } from "./webauthn.ts";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";

/**
 * Under `require_phishing_resistant`, a user who holds a passkey completes MFA with it alone; one who holds
 * none still uses the org's other factors (and is asked to enrol one), so that the setting never locks
 * anybody out of the only place where a passkey can be added.
 */
export function factorsAllowedFor(org: OrgMfaSettings, holdsPasskey: boolean): OrgMfaSettings["allowedFactors"] {
  return org.requirePhishingResistant && holdsPasskey ? ["webauthn"] : org.allowedFactors;
}

/**
 * The org's settings as a sign-in challenge applies them: when the risk engine asked for a phishing-resistant
 * factor, as `require_phishing_resistant` would (a passkey alone for a user who holds one).
 */
export function settingsForChallenge(org: OrgMfaSettings, challenge: { readonly phishingResistant?: true }): OrgMfaSettings {
  return challenge.phishingResistant === true ? { ...org, requirePhishingResistant: true } : org;
}

export async function holdsPasskey(ctx: Context, userId: string): Promise<boolean> {
  return (await ctx.stores.passkeys.list(userId)).length > 0;
}

/**
 * Gives the `webauthn` option of an MFA challenge its request options: a fresh WebAuthn challenge stored
 * under the MFA challenge's id, expiring with it, for the user's passkeys.
 */
export async function withPasskeyOptions(
  tx: Context,
  challengeId: string,
  target: { readonly userId: string; readonly orgId: string },
  expiresAt: EpochMs,
  factors: readonly MfaFactorOption[],
): Promise<MfaFactorOption[]> {
  if (!factors.some((factor) => factor.kind === "webauthn")) return [...factors];
  const challenge = newWebAuthnChallenge(tx.random);
  const now = tx.clock.now();
  await tx.stores.webauthnChallenges.put({ id: challengeId, ceremony: "authenticate", ...target, challenge, label: "", expiresAt, createdAt: now });
  const webauthnOptionsJson = await authenticationOptionsJson(tx.config.webauthn, challenge, await tx.stores.passkeys.list(target.userId));
  return factors.map((factor) => (factor.kind === "webauthn" ? { ...factor, webauthnOptionsJson } : factor));
}

/**
 * Whether `response` is one of the user's passkeys signing the challenge's WebAuthn challenge. That
 * challenge is consumed first, so any answer, right or wrong, uses it up: a replayed or second response finds
 * none. A verified assertion whose counter did not move forward is refused and recorded.
 */
export async function checkPasskeyAnswer(tx: Context, challenge: MfaChallenge, user: User, response: AuthenticationResponseJSON): Promise<boolean> {
  const ceremony = await tx.stores.webauthnChallenges.consume(challenge.id, "authenticate", tx.clock.now());
  if (ceremony === null || ceremony.userId !== user.id) return false;
  const factor = await tx.stores.passkeys.findByCredentialId(response.id);
  if (factor === null || factor.userId !== user.id) return false;
  const subject: AuditSubject = { actor: { kind: "user", userId: user.id }, orgId: challenge.orgId, userId: user.id, deviceId: challenge.deviceId };
  return acceptAssertion(tx, factor, response, ceremony.challenge, false, subject);
}

/** Verifies an assertion by `factor` and moves its counter forward atomically; a counter that went backwards is recorded. */
export async function acceptAssertion(
  tx: Context,
  factor: WebAuthnFactor,
  response: AuthenticationResponseJSON,
  challenge: string,
  requireUserVerification: boolean,
  subject: AuditSubject,
): Promise<boolean> {
  const verified = await verifyAssertion(tx.config.webauthn, response, challenge, factor, requireUserVerification);
  if (verified === null) return false;
  if (!counterMovedForward(factor.counter, verified.counter)) {
    await recordAudit(tx, "passkey.counter_regressed", subject, { factorId: factor.id, storedCounter: factor.counter, receivedCounter: verified.counter });
    return false;
  }
  return tx.stores.passkeys.acceptCounter(factor.id, verified.counter, verified.backedUp, tx.clock.now());
}
