import { recordAudit, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { orgSettingsOf } from "../factors/step-up.ts";
import { isSmsOnly, usableFactors } from "../factors/usable-factors.ts";
import { requireId } from "../input.ts";
import { deviceLabel, summarizeDevice, type DeviceSummary } from "../devices/device-summary.ts";
import type { EpochMs, Session } from "../model.ts";
import type { MfaRequired, Principal } from "../results.ts";
import { prepareChallenge, sendChallenge, storeCodelessChallenge } from "./second-factor.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface SessionView {
  readonly id: string;
  readonly createdAt: EpochMs;
  /** When its tokens were last issued (sign-in, refresh or step-up). */
  readonly lastSeenAt: EpochMs;
  /** What the device is, from its user agent (see device-summary.ts). */
  readonly deviceLabel: string;
  readonly amr: readonly string[];
  /** The session making this call. */
  readonly current: boolean;
}

/** When the session's tokens were last issued: an access token lives accessTokenTtlMs from its issue, unless the session's end came first. */
export function lastIssuedAt(ctx: Context, session: Session): EpochMs {
  return Math.max(session.createdAt, Math.min(session.accessExpiresAt, session.expiresAt) - ctx.config.accessTokenTtlMs);
}

function subjectOf(principal: Principal, request: RequestMeta | undefined): AuditSubject {
  return { actor: { kind: "user", userId: principal.userId }, orgId: principal.orgId, userId: principal.userId, deviceId: principal.deviceId, request };
}

/** The user's live sessions in the session's org, newest first. */
export async function listSessions(ctx: Context, principal: Principal): Promise<SessionView[]> {
  const now = ctx.clock.now();
  const sessions = await ctx.stores.sessions.listActiveByUser(principal.orgId, principal.userId, now);
  const devices = new Map((await ctx.stores.devices.listByUser(principal.orgId, principal.userId)).map((device) => [device.id, device]));
  return sessions.map((session) => ({
    id: session.id,
    createdAt: session.createdAt,
    lastSeenAt: lastIssuedAt(ctx, session),
    deviceLabel: deviceLabel(devices.get(session.deviceId)?.userAgent ?? null),
    amr: session.amr,
    current: session.id === principal.sessionId,
  }));
}

/** Ends one of the user's own sessions in this org (another device's, or this one). */
export async function revokeSession(ctx: Context, principal: Principal, sessionId: string, request?: RequestMeta): Promise<void> {
  const id = requireId("session_id", sessionId);
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const own = (await tx.stores.sessions.listActiveByUser(principal.orgId, principal.userId, now)).some((session) => session.id === id);
    if (!own || !(await tx.stores.sessions.revoke(id, now))) throw new GatehouseError("not_found", "session not found");
    await recordAudit(tx, "session.revoked", subjectOf(principal, request), { reason: "logout", sessionId: id, count: 1 });
  });
}

export async function listDevices(ctx: Context, principal: Principal): Promise<DeviceSummary[]> {
  return (await ctx.stores.devices.listByUser(principal.orgId, principal.userId)).map((device) => summarizeDevice(device, principal.deviceId));
}

/** Forgetting a device ends its trust and its sessions: the next sign-in from it needs the second factor. */
export async function forgetDevice(ctx: Context, principal: Principal, deviceId: string, request?: RequestMeta): Promise<void> {
  const id = requireId("device_id", deviceId);
  await inTransaction(ctx, async (tx) => {
    const device = await tx.stores.devices.findById(id);
    if (device === null || device.userId !== principal.userId || device.orgId !== principal.orgId) throw new GatehouseError("not_found", "device not found");
    const now = tx.clock.now();
    const subject = { ...subjectOf(principal, request), deviceId: id };
    await tx.stores.devices.revokeTrust(id, now);
    await recordAudit(tx, "device.trust_revoked", subject, {});
    const ended = await tx.stores.sessions.revokeByDevice(id, now);
    if (ended > 0) await recordAudit(tx, "session.revoked", subject, { reason: "device_trust_revoked", sessionId: null, count: ended });
  });
}

/**
 * A challenge that renews this session's second factor (design/factors.md "Step-up"): VerifyMFA on it
 * records the factor on the session and answers new tokens for it. As at sign-in, an SMS goes out at once
 * only when it is the user's one factor.
 */
export async function startStepUp(ctx: Context, principal: Principal, request?: RequestMeta): Promise<MfaRequired> {
  const user = await ctx.stores.users.findById(principal.userId);
  if (user === null || user.disabledAt != null) throw new GatehouseError("unauthenticated");
  const org = await orgSettingsOf(ctx, principal.orgId);
  const target = { userId: user.id, orgId: principal.orgId, deviceId: principal.deviceId, stepUpSessionId: principal.sessionId };
  const step = await inTransaction(ctx, async (tx) => {
    const factors = await usableFactors(tx, user, org);
    if (factors.length === 0) throw new GatehouseError("permission_denied", "no second factor this org allows is set up");
    if (!isSmsOnly(factors) || user.phone === null) return { answer: await storeCodelessChallenge(tx, target, user, factors) };
    return { prepared: await prepareChallenge(tx, target, user.phone, request, factors) };
  });
  return step.prepared === undefined ? step.answer : sendChallenge(ctx, step.prepared);
}
