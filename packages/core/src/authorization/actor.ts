import { auditActorOf, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireId } from "../input.ts";
import type { OrgRole } from "../model.ts";
import type { Principal } from "../results.ts";
import { requireSessionOrg } from "./session-scope.ts";

/**
 * Who asks: a signed-in user (checked against roles) or the operator's command line (trusted).
 * A user acts through a session, and `orgId` is the org that session was issued for: org-scoped
 * operations on any other org are refused, platform admins included.
 */
export type Actor =
  /** The operator's command line (`operator`: who ran it, recorded in the audit trail) or the server itself. */
  | { readonly kind: "system"; readonly operator?: string }
  /** `request`: where the call came from, recorded with the audit events it causes. */
  | { readonly kind: "user"; readonly userId: string; readonly orgId: string; readonly request?: RequestMeta };

/** The actor of a signed-in principal: its user, scoped to the org its session was issued for. */
export function actorFor(principal: Principal, request?: RequestMeta): Actor {
  return { kind: "user", userId: principal.userId, orgId: principal.orgId, request };
}

/** Whom an admin change is recorded for: the actor, the org, and where the call came from. */
export function adminSubject(actor: Actor, orgId: string | null, about: { userId?: string; deviceId?: string } = {}): AuditSubject {
  return { actor: auditActorOf(actor), orgId, ...about, request: actor.kind === "user" ? actor.request : undefined };
}

export const SYSTEM_ACTOR: Actor = { kind: "system" };

export async function isPlatformAdmin(ctx: Context, actor: Actor): Promise<boolean> {
  if (actor.kind === "system") return true;
  return (await ctx.stores.users.findById(actor.userId))?.platformAdmin ?? false;
}

export async function requirePlatformAdmin(ctx: Context, actor: Actor): Promise<void> {
  if (!(await isPlatformAdmin(ctx, actor))) throw new GatehouseError("permission_denied", "platform admin role required");
}

/** Org admins manage their org; platform admins manage every org, each through a session issued for it. */
export async function requireOrgAdmin(ctx: Context, actor: Actor, orgId: string): Promise<void> {
  requireId("org_id", orgId);
  if (actor.kind === "user") requireSessionOrg(actor.orgId, orgId);
  if ((await ctx.stores.orgs.findById(orgId)) === null) throw new GatehouseError("not_found", "organization not found");
  if (await isPlatformAdmin(ctx, actor)) return;
  const membership = actor.kind === "user" ? await ctx.stores.orgs.findMembership(orgId, actor.userId) : null;
  if (membership?.role !== "admin") throw new GatehouseError("permission_denied", "organization admin role required");
}

/** Turns an edge's string (wire field, CLI flag) into a role, or `invalid_argument` naming the field. */
export function parseOrgRole(value: string): OrgRole {
  if (value === "member" || value === "admin") return value;
  throw invalidArgument("role", 'must be "member" or "admin"');
}
