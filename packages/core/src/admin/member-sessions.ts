import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { requireId } from "../input.ts";
import type { EpochMs } from "../model.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { adminSubject, requireOrgAdmin, type Actor } from "../authorization/actor.ts";

/** A member's live session as an admin sees it: never a token or its hash. */
export interface MemberSession {
  readonly id: string;
  readonly deviceId: string;
  readonly createdAt: EpochMs;
  /** When its access token was last issued (sign-in, refresh or step-up). */
  readonly lastSeenAt: EpochMs;
  readonly amr: readonly string[];
}

async function requireMember(ctx: Context, orgId: string, userId: string): Promise<string> {
  const id = requireId("user_id", userId);
  if ((await ctx.stores.orgs.findMembership(orgId, id)) === null) throw new GatehouseError("not_found", "membership not found");
  return id;
}

/** The member's live sessions in the org, newest first. */
export async function listMemberSessions(ctx: Context, actor: Actor, orgId: string, userId: string): Promise<MemberSession[]> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberId = await requireMember(ctx, orgId, userId);
  const sessions = await ctx.stores.sessions.listActiveByUser(orgId, memberId, ctx.clock.now());
  return sessions.map((session) => ({
    id: session.id,
    deviceId: session.deviceId,
    createdAt: session.createdAt,
    // An access token lives accessTokenTtlMs from its issue, unless the session's end came first.
    lastSeenAt: Math.max(session.createdAt, Math.min(session.accessExpiresAt, session.expiresAt) - ctx.config.accessTokenTtlMs),
    amr: session.amr,
  }));
}

/** Ends one live session of the member in the org, recorded as an admin's revocation. */
export async function revokeMemberSession(ctx: Context, actor: Actor, orgId: string, userId: string, sessionId: string): Promise<void> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberId = await requireMember(ctx, orgId, userId);
  const id = requireId("session_id", sessionId);
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const theirs = (await tx.stores.sessions.listActiveByUser(orgId, memberId, now)).some((session) => session.id === id);
    if (!theirs || !(await tx.stores.sessions.revoke(id, now))) throw new GatehouseError("not_found", "session not found");
    await recordAudit(tx, "session.revoked", adminSubject(actor, orgId, { userId: memberId }), { reason: "admin", sessionId: id, count: 1 });
  });
}
