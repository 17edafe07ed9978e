import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { requireId } from "../input.ts";
import type { OrgRole } from "../model.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { adminSubject, parseOrgRole, requireOrgAdmin, type Actor } from "../authorization/actor.ts";

/**
 * Changes a member's role. Admins never change their own: another admin does it, so an org cannot lose its
 * last admin by one slip. Setting the role a member already has changes nothing and records nothing.
 */
export async function setMemberRole(ctx: Context, actor: Actor, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberId = requireId("user_id", userId);
  const next = parseOrgRole(role);
  if (actor.kind === "user" && actor.userId === memberId) throw new GatehouseError("permission_denied", "an admin cannot change their own role");
  await inTransaction(ctx, async (tx) => {
    const current = await tx.stores.orgs.findMembership(orgId, memberId);
    if (current === null) throw new GatehouseError("not_found", "membership not found");
    if (current.role === next) return;
    await tx.stores.orgs.putMembership({ orgId, userId: memberId, role: next });
    await recordAudit(tx, "member.role_changed", adminSubject(actor, orgId, { userId: memberId }), { role: next, previousRole: current.role });
  });
}
