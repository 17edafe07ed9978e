import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { OrgMfaSettings } from "../model.ts";
import type { Principal } from "../results.ts";
import { effectiveSettings } from "../settings.ts";

const MINUTE_MS = 60_000;

export async function orgSettingsOf(ctx: Context, orgId: string): Promise<OrgMfaSettings> {
  return effectiveSettings(await ctx.stores.settings.getForOrg(orgId)).org;
}

/**
 * Sensitive calls (AdminService, adding or removing a factor) need a second factor verified in this session
 * within the org's `step_up_max_age_minutes`: a stolen session, or one that never did MFA (a trusted device),
 * cannot make them without the factor. The principal is read per request, so a step-up counts at once.
 */
export async function requireStepUp(ctx: Context, principal: Principal): Promise<void> {
  await requireFreshSecondFactor(ctx, principal);
}

/**
 * `requireStepUp` for AdminService: asked only of a caller who holds an admin role (of the session's org,
 * or of the platform), so anyone else gets the role's refusal from the call itself, not an invitation to
 * step up for a call that would be refused anyway.
 */
export async function requireAdminStepUp(ctx: Context, principal: Principal): Promise<void> {
  const [user, membership] = await Promise.all([
    ctx.stores.users.findById(principal.userId),
    ctx.stores.orgs.findMembership(principal.orgId, principal.userId),
  ]);
  if (user?.platformAdmin !== true && membership?.role !== "admin") return;
  await requireFreshSecondFactor(ctx, principal);
}

async function requireFreshSecondFactor(ctx: Context, principal: Principal): Promise<void> {
  const { stepUpMaxAgeMinutes } = await orgSettingsOf(ctx, principal.orgId);
  if (principal.mfaAt === null || ctx.clock.now() - principal.mfaAt > stepUpMaxAgeMinutes * MINUTE_MS) {
    throw new GatehouseError("step_up_required");
  }
}
