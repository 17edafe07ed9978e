import type { SessionRevocationReason } from "../records/audit-events.ts";
import { recordAudit, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { assessDevice } from "./device-assessment.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { deviceFingerprintOrDefault, requirePlainText } from "../input.ts";
import type { RefreshRotation, ReplayWindow } from "../ports.ts";
import { openSuccessor, sealSuccessor } from "./refresh-successor.ts";
import type { AuthOutcome, IssuedTokens } from "../results.ts";
import { completeSignIn, startSecondFactor, type SignInStep } from "./second-factor.ts";
import { newTokenPair, toIssuedTokens, type FreshTokens } from "./session-issuer.ts";
import { hashToken, MAX_TOKEN_LENGTH, REFRESH_TOKEN_PREFIX } from "../bearer-tokens.ts";
import { effectiveSettings } from "../settings.ts";
import { markAudienceToSign } from "../tokens/audience-to-sign.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { judgeRefresh, riskAsksSecondFactor, riskEventOf } from "../risk/sign-in-risk.ts";

export interface RefreshInput {
  readonly refreshToken: string;
  readonly deviceFingerprint?: string;
  /** Recorded with the audit events. */
  readonly request?: RequestMeta;
}

const invalidRefresh = () => new GatehouseError("unauthenticated", "invalid or expired refresh token");

/** The tokens a rotation hands out: the fresh pair, or, for a replay within the reuse interval, the sealed successor. */
function tokensOf(rotation: RefreshRotation, fresh: FreshTokens, oldRefreshToken: string): IssuedTokens {
  // The store capped the expiries at the session's absolute end: the answer tells the capped one.
  if (rotation.kind === "rotated") return { ...toIssuedTokens(fresh, rotation.session), expiresAt: rotation.session.accessExpiresAt };
  if (rotation.kind !== "replayed") throw invalidRefresh();
  const successor = openSuccessor(oldRefreshToken, rotation.sealedSuccessor);
  if (successor === null) throw invalidRefresh();
  const { session } = rotation;
  return { ...successor, expiresAt: session.accessExpiresAt, userId: session.userId, orgId: session.orgId, amr: session.amr, aal: session.aal };
}

/**
 * Rotates the refresh token (atomically, with reuse detection) and re-evaluates the MFA policy for
 * the session's own device, every time: if MFA is now required (`mfa_always`, trust revoked or run
 * out) the session is revoked and the caller continues as after Login. A fingerprint that is not the
 * session's device's is refused like a reused token (the session is revoked): a stolen refresh token
 * cannot be judged for another device, nor for none. A user no longer in the org, or disabled, loses
 * the session too. Rotation never extends the session's absolute end (the store caps it). Within the reuse
 * interval a replay of the just-rotated token gets the same successor tokens (a second tab, a
 * response lost in a crash) and passes the same checks; after it, reuse revokes the session (the
 * revocation commits with the refusal, see `inTransaction`). One unit of work; an OTP goes out after it.
 */
export async function refresh(ctx: Context, input: RefreshInput): Promise<AuthOutcome> {
  if (input.refreshToken === "") throw invalidArgument("refresh_token", "is required");
  requirePlainText("refresh_token", input.refreshToken);
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || input.refreshToken.length > MAX_TOKEN_LENGTH) throw invalidRefresh();
  const fingerprint = input.deviceFingerprint?.trim() ? deviceFingerprintOrDefault(input.deviceFingerprint) : null;

  const fresh = newTokenPair(ctx);
  const replay = { sealedSuccessor: sealSuccessor(input.refreshToken, fresh, ctx.random), reuseIntervalMs: ctx.config.refreshReuseIntervalMs };
  const step = await inTransaction(ctx, (tx) => rotateAndReassess(tx, input.refreshToken, fresh, replay, fingerprint, input.request));
  return completeSignIn(ctx, step);
}

async function rotateAndReassess(
  tx: Context,
  refreshToken: string,
  fresh: FreshTokens,
  replay: ReplayWindow,
  fingerprint: string | null,
  request: RequestMeta | undefined,
): Promise<SignInStep> {
  const now = tx.clock.now();
  const rotation = await tx.stores.sessions.rotate(hashToken(refreshToken), fresh.pair, now, replay);
  if (rotation.kind === "reused") {
    const { sessionId, userId, orgId, deviceId } = rotation;
    await recordAudit(tx, "session.refresh_reuse_detected", { actor: { kind: "anonymous" }, orgId, userId, deviceId, request }, { sessionId });
  }
  if (rotation.kind !== "rotated" && rotation.kind !== "replayed") throw invalidRefresh();
  const { session } = rotation;
  const tokens = tokensOf(rotation, fresh, refreshToken);
  const subject: AuditSubject = {
    actor: { kind: "user", userId: session.userId },
    orgId: session.orgId,
    userId: session.userId,
    deviceId: session.deviceId,
    request,
  };
  // A replay hands out the successor of a rotation already recorded.
  if (rotation.kind === "rotated") await recordAudit(tx, "session.refreshed", subject, { sessionId: session.id });
  const revoke = async (reason: SessionRevocationReason) => {
    if (await tx.stores.sessions.revoke(session.id, now)) await recordAudit(tx, "session.revoked", subject, { reason, sessionId: session.id, count: 1 });
  };

  const facts = await tx.stores.signInFacts.read(session.userId, session.orgId, session.deviceId);
  if (facts === null || facts.membership === null) {
    await revoke("member_removed");
    throw new GatehouseError("not_org_member");
  }
  const { user, device } = facts;
  if (device === null || (fingerprint !== null && device.fingerprintHash !== tx.fingerprints.hash(fingerprint))) {
    await revoke("device_mismatch");
    throw invalidRefresh();
  }
  if (user.disabledAt != null) {
    await revoke("user_disabled");
    throw invalidRefresh();
  }
  const { policy } = assessDevice(tx, facts, "refresh");
  if (policy.mfaRequired) {
    await revoke("mfa_required_again");
    return startSecondFactor(tx, user, effectiveSettings(facts.settings).org, session.orgId, device.id, request);
  }
  // The user is known only once the token rotated, inside the unit of work: the engine runs here.
  const judged = await judgeRefresh(tx, session.userId, session.orgId, request);
  if (judged !== null) await tx.stores.risk.appendEvent(riskEventOf(tx, judged, session.userId, session.orgId));
  if (judged?.applied === "block") {
    await revoke("risk");
    throw new GatehouseError("risk_blocked");
  }
  if (riskAsksSecondFactor(judged)) {
    await revoke("risk");
    return startSecondFactor(tx, user, effectiveSettings(facts.settings).org, session.orgId, device.id, request, judged?.applied === "phishing_resistant");
  }
  return { kind: "tokens", tokens: markAudienceToSign(tokens, effectiveSettings(facts.settings).org.accessJwtAudience) };
}
