import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { requireId } from "../input.ts";
import { resolveOrgId } from "./org-reference.ts";
import type { Principal } from "../results.ts";

/**
 * A session acts only for the org it was issued for: its MFA was decided by that org's settings,
 * so accepting it for another org would skip that org's MFA. Platform admins are no exception.
 */
export function requireSessionOrg(sessionOrgId: string, requestedOrgId: string): void {
  if (sessionOrgId !== requestedOrgId) throw new GatehouseError("permission_denied", "this session was issued for another organization");
}

/**
 * The org a browser call names, by id or by short name (slug, any case), as Login takes it: the session's own org
 * id answers at once, with no lookup; anything else is resolved, then must be the session's org.
 */
export async function sessionOrgOf(ctx: Context, principal: Principal, reference: string): Promise<string> {
  requireId("org_id", reference);
  if (reference === principal.orgId) return reference;
  const orgId = await resolveOrgId(ctx, reference.trim());
  requireSessionOrg(principal.orgId, orgId);
  return orgId;
}
