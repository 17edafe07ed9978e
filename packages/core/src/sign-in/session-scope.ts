import { GatehouseError } from "../errors.ts";

/**
 * A session acts only for the org it was issued for: its MFA was decided by that org's settings,
 * so accepting it for another org would skip that org's MFA. Platform admins are no exception.
 */
export function requireSessionOrg(sessionOrgId: string, requestedOrgId: string): void {
  if (sessionOrgId !== requestedOrgId) throw new GatehouseError("permission_denied", "this session was issued for another organization");
}
