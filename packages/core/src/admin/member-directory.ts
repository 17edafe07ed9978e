import type { Context } from "../context.ts";
import type { EpochMs, FactorKind, OrgRole } from "../model.ts";
import { factorsViewOf } from "../factors/account-factors.ts";
import { requireOrgAdmin, type Actor } from "../authorization/actor.ts";

/** A member as the admin console lists one: who, which role, which kinds of factor they hold, when last seen. */
export interface MemberSummary {
  readonly userId: string;
  readonly email: string;
  readonly role: OrgRole;
  /** Strongest first; never a secret, a label or a phone number. */
  readonly factorKinds: readonly FactorKind[];
  /** The latest sign-in or refresh from any of their devices in the org; null when never. */
  readonly lastSeenAt: EpochMs | null;
}

const STRENGTH: readonly FactorKind[] = ["webauthn", "totp", "sms", "recovery_code"];

/** Three reads per member: meant for an admin's page of an org's members, not for a hot path. */
export async function listMemberSummaries(ctx: Context, actor: Actor, orgId: string): Promise<MemberSummary[]> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberships = await ctx.stores.orgs.listMemberships(orgId);
  const members = await Promise.all(
    memberships.map(async ({ userId, role }): Promise<MemberSummary | null> => {
      const user = await ctx.stores.users.findById(userId);
      if (user === null) return null;
      const [factors, devices] = await Promise.all([factorsViewOf(ctx, user), ctx.stores.devices.listByUser(orgId, userId)]);
      const held = new Set<FactorKind>(factors.factors.map((factor) => factor.kind));
      if (factors.phoneMask !== "") held.add("sms");
      if (factors.recoveryCodesLeft > 0) held.add("recovery_code");
      const seen = devices.filter((device) => device.sessionIssuedAt !== null).map((device) => device.lastSeenAt);
      return {
        userId,
        email: user.email,
        role,
        factorKinds: STRENGTH.filter((kind) => held.has(kind)),
        lastSeenAt: seen.length === 0 ? null : Math.max(...seen),
      };
    }),
  );
  return members.filter((member) => member !== null).sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}
