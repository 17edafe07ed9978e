import { RISK_HISTORY, type EpochMs } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { deleteUnusedDevices } from "./device-repository.ts";
import type { Database } from "./schema.ts";
import { deleteEndedSessions } from "./session-repository.ts";

/** VerifyMFA tells an expired challenge from an unknown one; keep that answer stable for a day. */
const EXPIRED_CHALLENGE_GRACE_MS = 24 * 60 * 60 * 1000;

/** A device neither trusted nor seen for this long, with no session left, is deleted: its next sign-in is a new device's anyway. */
export const UNUSED_DEVICE_MS = 90 * 24 * 60 * 60 * 1000;

export interface PurgedCounts {
  readonly rateLimitLogs: number;
  readonly retiredRefreshTokens: number;
  readonly intents: number;
  readonly challenges: number;
  readonly auditEvents: number;
  readonly emailTokens: number;
  readonly invitations: number;
  /** SMS traffic buckets past the audit retention, and breakers that have closed. */
  readonly smsTraffic: number;
  /** Sessions revoked or expired whose retired refresh tokens detect no reuse any more. */
  readonly sessions: number;
  /** Devices neither trusted nor seen for `UNUSED_DEVICE_MS`, with no session left. */
  readonly devices: number;
  /** Risk-engine sign-ins older than the history's six months, and risk events past the audit retention. */
  readonly risk: number;
  /** The OpenID Provider's codes, tokens, sessions and interactions past their expiry (clients never expire). */
  readonly oidcRecords: number;
}

/** How long rows kept for the record (not for an answer) stay. */
export interface PurgeRetention {
  /** Audit events older than this are deleted (`at <= now - auditRetentionMs`); a whole number of ms ≥ 0. */
  readonly auditRetentionMs: number;
}

/**
 * Deletes rows that can no longer change an answer: rate-limit logs whose every unit has left its
 * window, retired refresh hashes past their reuse-detection expiry, expired intents, email-link
 * tokens and invitations, WebAuthn challenges, MFA challenges a day past expiry, SMS breakers that have closed, sessions that
 * ended (revoked or expired) once their retired refresh tokens expired, devices neither trusted nor seen for 90 days with
 * no session left; and audit events
 * and SMS traffic counts (the conversion report's record) past the audit retention; the risk engine's sign-ins
 * past its six-month history and its events past the audit retention.
 * Nothing else removes them, so call it on a timer (hourly is plenty) from one replica or from
 * all: every statement is idempotent.
 */
export async function purgeExpired(db: Kysely<Database>, now: EpochMs, retention: PurgeRetention): Promise<PurgedCounts> {
  if (!Number.isSafeInteger(retention.auditRetentionMs) || retention.auditRetentionMs < 0) {
    throw new RangeError("the audit retention must be a whole number of milliseconds ≥ 0");
  }
  const logs = await db.deleteFrom("rate_limits").where("expires_at", "<=", now).executeTakeFirst();
  const retired = await db.deleteFrom("retired_refresh_tokens").where("expires_at", "<=", now).executeTakeFirst();
  const intents = await db.deleteFrom("mfa_intents").where("expires_at", "<=", now).executeTakeFirst();
  const challenges = await db
    .deleteFrom("mfa_challenges")
    .where("expires_at", "<=", now - EXPIRED_CHALLENGE_GRACE_MS)
    .executeTakeFirst();
  // A WebAuthn challenge past its expiry answers nothing (its MFA challenge keeps the expired answer).
  const ceremonies = await db.deleteFrom("webauthn_challenges").where("expires_at", "<=", now).executeTakeFirst();
  const emailTokens = await db.deleteFrom("email_tokens").where("expires_at", "<=", now).executeTakeFirst();
  const invitations = await db.deleteFrom("invitations").where("expires_at", "<=", now).executeTakeFirst();
  const auditEvents = await db
    .deleteFrom("audit_events")
    .where("at", "<=", now - retention.auditRetentionMs)
    .executeTakeFirst();
  const buckets = await db
    .deleteFrom("sms_traffic")
    .where("bucket_start", "<=", now - retention.auditRetentionMs)
    .executeTakeFirst();
  const breakers = await db.deleteFrom("sms_breakers").where("open_until", "<=", now).executeTakeFirst();
  // Sessions first: a device goes only once no session refers to it.
  const sessions = await deleteEndedSessions(db, now);
  const devices = await deleteUnusedDevices(db, now, now - UNUSED_DEVICE_MS);
  // A user who stopped signing in keeps no history past the window (an active one's is pruned as they sign in).
  const riskSignIns = await db
    .deleteFrom("risk_sign_ins")
    .where("at", "<", now - RISK_HISTORY.windowMs)
    .executeTakeFirst();
  // The engine's decisions are part of the record: they follow the audit retention.
  const riskEvents = await db
    .deleteFrom("risk_events")
    .where("at", "<=", now - retention.auditRetentionMs)
    .executeTakeFirst();
  const oidcRecords = await db.deleteFrom("oidc_records").where("expires_at", "<=", now).executeTakeFirst();
  return {
    rateLimitLogs: Number(logs.numDeletedRows),
    retiredRefreshTokens: Number(retired.numDeletedRows),
    intents: Number(intents.numDeletedRows),
    challenges: Number(challenges.numDeletedRows) + Number(ceremonies.numDeletedRows),
    auditEvents: Number(auditEvents.numDeletedRows),
    emailTokens: Number(emailTokens.numDeletedRows),
    invitations: Number(invitations.numDeletedRows),
    smsTraffic: Number(buckets.numDeletedRows) + Number(breakers.numDeletedRows),
    sessions,
    devices,
    risk: Number(riskSignIns.numDeletedRows) + Number(riskEvents.numDeletedRows),
    oidcRecords: Number(oidcRecords.numDeletedRows),
  };
}
