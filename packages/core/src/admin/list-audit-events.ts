import { AUDIT_EVENT_KINDS, isAuditEventKind, type AuditEventKind } from "../records/audit-events.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireId } from "../input.ts";
import type { EpochMs } from "../model.ts";
import type { AuditPage } from "../ports.ts";
import { isPlatformAdmin, requireOrgAdmin, type Actor } from "../authorization/actor.ts";
import { requireUserByEmail } from "./operations.ts";

export const DEFAULT_AUDIT_PAGE_SIZE = 100;
export const MAX_AUDIT_PAGE_SIZE = 500;

/** What an admin asks for; every field is optional and narrows the listing. */
export interface AuditEventsQuery {
  readonly orgId?: string;
  /** The user the events are about; give this or `userEmail`, not both. */
  readonly userId?: string;
  readonly userEmail?: string;
  /** Any of these kinds (see `AUDIT_EVENT_KINDS`); absent or empty: every kind. */
  readonly kinds?: readonly string[];
  /** Events at or after this time. */
  readonly since?: EpochMs;
  /** Events before this time. */
  readonly until?: EpochMs;
  /** Events per page, 1 to `MAX_AUDIT_PAGE_SIZE`; `DEFAULT_AUDIT_PAGE_SIZE` when absent. */
  readonly limit?: number;
  /** The previous page's `nextCursor`. */
  readonly cursor?: string;
}

function requireTime(field: string, value: EpochMs | undefined): EpochMs | undefined {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw invalidArgument(field, "must be a time at or after 1970-01-01T00:00:00Z");
  return value;
}

function requireKinds(kinds: readonly string[] | undefined): AuditEventKind[] | undefined {
  if (kinds === undefined || kinds.length === 0) return undefined;
  const unknown = kinds.find((kind) => !isAuditEventKind(kind));
  if (unknown !== undefined) throw invalidArgument("kinds", `${JSON.stringify(unknown.slice(0, 64))} is not an event kind (${AUDIT_EVENT_KINDS.join(", ")})`);
  return [...new Set(kinds as readonly AuditEventKind[])];
}

function requireLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_AUDIT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE_SIZE)
    throw invalidArgument("limit", `must be a whole number from 1 to ${MAX_AUDIT_PAGE_SIZE}`);
  return limit;
}

/**
 * The org an actor may read: org admins read the org their session was issued for (and only it,
 * whatever they ask); platform admins and the operator read every org, or the one they name,
 * since the trail is the platform's record rather than an org's setting.
 */
async function readableOrg(ctx: Context, actor: Actor, orgId: string | undefined): Promise<string | undefined> {
  if (await isPlatformAdmin(ctx, actor)) {
    if (orgId === undefined) return undefined;
    if ((await ctx.stores.orgs.findById(requireId("org_id", orgId))) === null) throw new GatehouseError("not_found", "organization not found");
    return orgId;
  }
  const scoped = orgId ?? (actor.kind === "user" ? actor.orgId : "");
  await requireOrgAdmin(ctx, actor, scoped);
  return scoped;
}

/** One page of the audit trail, newest first; follow `nextCursor` with the same filters for the next. */
export async function listAuditEvents(ctx: Context, actor: Actor, query: AuditEventsQuery): Promise<AuditPage> {
  if (query.userId !== undefined && query.userEmail !== undefined) throw invalidArgument("user", "give a user id or an email, not both");
  const kinds = requireKinds(query.kinds);
  const from = requireTime("since", query.since);
  const to = requireTime("until", query.until);
  if (from !== undefined && to !== undefined && to < from) throw invalidArgument("until", "must not be before since");
  const limit = requireLimit(query.limit);
  const userId = query.userId === undefined ? undefined : requireId("user_id", query.userId);
  const orgId = await readableOrg(ctx, actor, query.orgId);
  const subject = query.userEmail === undefined ? userId : (await requireUserByEmail(ctx, query.userEmail)).id;
  return ctx.stores.audit.list({ orgId, userId: subject, kinds, from, to, limit, cursor: query.cursor });
}
