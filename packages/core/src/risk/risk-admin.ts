import { isPlatformAdmin, requireOrgAdmin, adminSubject, type Actor } from "../admin/authorization.ts";
import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { riskPolicyFromJson, riskPolicyToJson, type RiskPolicy } from "./policy.ts";
import type { RiskEvent } from "./risk-event.ts";
import { riskPolicyOf } from "./sign-in-risk.ts";

export const MAX_RISK_EVENTS_PAGE = 1000;

export interface RiskEventsQuery {
  /** Null: every org's (platform admins and the operator only). */
  readonly orgId: string | null;
  readonly userId?: string;
  readonly limit: number;
}

export async function getOrgRiskPolicy(ctx: Context, actor: Actor, orgId: string): Promise<RiskPolicy> {
  await requireOrgAdmin(ctx, actor, orgId);
  return riskPolicyOf(ctx, orgId);
}

/** `patch` in the snake_case JSON form; what it leaves out keeps the org's current value. Validated whole. */
export async function updateOrgRiskPolicy(ctx: Context, actor: Actor, orgId: string, patch: unknown): Promise<RiskPolicy> {
  await requireOrgAdmin(ctx, actor, orgId);
  return inTransaction(ctx, async (tx) => {
    const policy = riskPolicyFromJson(patch, await riskPolicyOf(tx, orgId));
    await tx.stores.risk.putPolicy(orgId, policy);
    await recordAudit(tx, "risk_policy.changed", adminSubject(actor, orgId), { policy: riskPolicyToJson(policy) });
    return policy;
  });
}

/** The judged sign-ins, newest first: an org's for its admins, any org's for platform admins and the operator. */
export async function listRiskEvents(ctx: Context, actor: Actor, query: RiskEventsQuery): Promise<RiskEvent[]> {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_RISK_EVENTS_PAGE) {
    throw invalidArgument("limit", `must be from 1 to ${MAX_RISK_EVENTS_PAGE}`);
  }
  if (query.orgId === null) {
    if (!(await isPlatformAdmin(ctx, actor))) throw new GatehouseError("permission_denied");
  } else await requireOrgAdmin(ctx, actor, query.orgId);
  return ctx.stores.risk.listEvents(query);
}
