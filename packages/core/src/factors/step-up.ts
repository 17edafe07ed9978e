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
  const { stepUpMaxAgeMinutes } = await orgSettingsOf(ctx, principal.orgId);
  if (principal.mfaAt === null || ctx.clock.now() - principal.mfaAt > stepUpMaxAgeMinutes * MINUTE_MS) {
    throw new GatehouseError("step_up_required");
  }
}
