import { recordAudit, type AuditSubject } from "./audit/record.ts";
import type { Context } from "./context.ts";

/** What a password reset or change leaves standing: the caller's own session and device, for a change. */
export interface Keep {
  readonly sessionId?: string;
  readonly deviceId?: string;
}

/**
 * Ends what a holder of the old password could still use, in every org: active sessions, device trust
 * (so the next sign-in needs the second factor), half-done sign-ins (challenges, intents). Runs in the
 * caller's unit of work `tx`.
 */
export async function endSignInsEverywhere(
  tx: Context,
  userId: string,
  subject: AuditSubject,
  keep: Keep = {},
  reason: "password_changed" | "factors_reset" = "password_changed",
): Promise<number> {
  const now = tx.clock.now();
  const sessions = await tx.stores.sessions.revokeEverywhere(userId, now, keep.sessionId);
  await tx.stores.devices.revokeTrustEverywhere(userId, now, keep.deviceId);
  await tx.stores.challenges.deleteByUser(userId);
  await tx.stores.intents.deleteByUser(userId);
  if (sessions > 0) await recordAudit(tx, "session.revoked", subject, { reason, sessionId: null, count: sessions });
  return sessions;
}
