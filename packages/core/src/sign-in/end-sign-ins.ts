import type { SessionRevocationReason } from "../records/audit-events.ts";
import { recordAudit, type AuditSubject } from "../audit/record.ts";
import type { Context } from "../context.ts";

/** Which of the user's sessions and devices an eviction reaches: one org's or every org's, less what the caller keeps. */
export interface EvictionScope {
  /** Only in this org; absent: in every org. */
  readonly orgId?: string;
  /** The caller's own session and device, left standing (a password change). */
  readonly keepSessionId?: string;
  readonly keepDeviceId?: string;
}

/**
 * Ends the user's sessions and the trust of their devices in `scope`, and makes those devices new again,
 * so the next sign-in from any of them needs the second factor whatever the org's rule for untrusted
 * devices. Recorded as `session.revoked` with `reason` and one `device.trust_revoked` (no device id).
 * Runs in the caller's unit of work `tx`; returns how many sessions ended.
 */
export async function evictUser(
  tx: Context,
  userId: string,
  subject: AuditSubject,
  reason: SessionRevocationReason,
  scope: EvictionScope = {},
): Promise<number> {
  const now = tx.clock.now();
  const sessions = await tx.stores.sessions.revokeByUser(userId, now, { orgId: scope.orgId, keepSessionId: scope.keepSessionId });
  if (sessions > 0) await recordAudit(tx, "session.revoked", subject, { reason, sessionId: null, count: sessions });
  const devices = await tx.stores.devices.evictByUser(userId, now, { orgId: scope.orgId, keepDeviceId: scope.keepDeviceId });
  if (devices > 0) await recordAudit(tx, "device.trust_revoked", subject, {});
  return sessions;
}

/**
 * Ends what a holder of the old password or factors could still use, in every org: `evictUser` everywhere
 * but the kept session and device, half-done sign-ins (challenges, intents), and the networks the account
 * signed in from (a network an intruder used is spared the guessing ceiling no longer). Runs in the
 * caller's unit of work `tx`; returns how many sessions ended.
 */
export async function endSignInsEverywhere(
  tx: Context,
  userId: string,
  subject: AuditSubject,
  reason: SessionRevocationReason,
  keep: Omit<EvictionScope, "orgId"> = {},
): Promise<number> {
  const sessions = await evictUser(tx, userId, subject, reason, keep);
  await tx.stores.challenges.deleteByUser(userId);
  await tx.stores.intents.deleteByUser(userId);
  await tx.stores.signInNetworks.forgetUser(userId);
  return sessions;
}
