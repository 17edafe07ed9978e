import { isPlatformAdmin, requireOrgAdmin, adminSubject, type Actor } from "../authorization/actor.ts";
import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { DEFAULT_RISK_POLICY, riskPolicyFromJson, riskPolicyToJson, type RiskPolicy } from "../records/risk-policy.ts";
import { replayRiskEvent, summarizeRiskReplay, type ReplayedEvent, type RiskReplaySummary } from "./replay.ts";
import type { RiskEvent } from "../records/risk-event.ts";
import { riskPolicyOf } from "./sign-in-risk.ts";

export const MAX_RISK_EVENTS_PAGE = 1000;
/** The most events one replay reads, newest first: the summary says when the window held more. */
export const MAX_RISK_REPLAY_EVENTS = 100_000;

export interface RiskEventsQuery {
  /** Null: every org's (platform admins and the operator only). */
  readonly orgId: string | null;
  readonly userId?: string;
  readonly since?: number;
  readonly limit: number;
}

export interface RiskReplayInput {
  /** Null: every org's events (platform admins and the operator only). */
  readonly orgId: string | null;
  readonly since: number;
  /** The candidate, in `riskPolicyFromJson`'s snake_case form, over the default policy. */
  readonly policy: unknown;
}

export interface RiskReplay {
  readonly policy: RiskPolicy;
  readonly summary: RiskReplaySummary & { readonly truncated: boolean };
  /** The events the candidate would step up or block, newest first. */
  readonly challenged: readonly ReplayedEvent[];
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

/**
 * The stored events since `since` decided again under a candidate policy, as `enforce` would decide them:
 * what it would have stepped up and blocked, before an org enforces it. Reads only.
 */
export async function replayRiskPolicy(ctx: Context, actor: Actor, input: RiskReplayInput): Promise<RiskReplay> {
  if (!Number.isFinite(input.since)) throw invalidArgument("since", "must be a time");
  const policy = riskPolicyFromJson(input.policy, DEFAULT_RISK_POLICY);
  if (input.orgId === null) {
    if (!(await isPlatformAdmin(ctx, actor))) throw new GatehouseError("permission_denied");
  } else await requireOrgAdmin(ctx, actor, input.orgId);
  const events = await ctx.stores.risk.listEvents({ orgId: input.orgId, since: input.since, limit: MAX_RISK_REPLAY_EVENTS + 1 });
  const truncated = events.length > MAX_RISK_REPLAY_EVENTS;
  const replayed = events.slice(0, MAX_RISK_REPLAY_EVENTS).map((event) => replayRiskEvent(policy, event));
  return { policy, summary: { ...summarizeRiskReplay(replayed), truncated }, challenged: replayed.filter((each) => each.decision !== "allow") };
}
