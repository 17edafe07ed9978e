import { recordRefusal, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { requireAdminStepUp } from "../factors/step-up.ts";
import { consumeAll, rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { Principal } from "../results.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { actorFor, adminSubject, requireOrgAdmin } from "../authorization/actor.ts";

/**
 * Decides from the caller's session alone whether a transport may read a browser policy it is sent to save,
 * so that a save that would be refused costs the server no decode of its megabytes (docs/decisions/
 * policy-save-admission.md). A session saves only its own org's policy (`requireSessionOrg`), so the org is
 * known before the body: the caller must be that org's admin, with the step-up every admin call asks, and
 * within `browserPolicyWritesPerUser`. That limit is per user, not per org, so that nobody can spend an
 * org's budget but its own; `updateOrgBrowserPolicy` still applies `browserPolicyWritesPerOrg` once the
 * policy is read.
 */
export async function admitBrowserPolicyWrite(ctx: Context, principal: Principal, request?: RequestMeta): Promise<void> {
  const actor = actorFor(principal, request);
  await requireOrgAdmin(ctx, actor, principal.orgId);
  await requireAdminStepUp(ctx, principal);
  const limit = {
    name: "browser_policy_writes_per_user",
    key: rateLimitKeys.browserPolicyWritesPerUser(principal.userId),
    windows: ctx.config.browserPolicyWritesPerUser,
  } as const;
  const consumed = await consumeAll(ctx.stores.rateLimiter, [limit], ctx.clock.now());
  if (!consumed.allowed) throw await inTransaction(ctx, (tx) => recordRefusal(tx, adminSubject(actor, principal.orgId), consumed.limit, consumed.refusal));
}
