import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { endSignInsEverywhere } from "../sign-in/end-sign-ins.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireId, requirePlainText } from "../input.ts";
import type { FactorKind, User } from "../model.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { factorsViewOf, type FactorsView } from "../factors/account-factors.ts";
import { FACTORS } from "../factors/registry.ts";
import { adminSubject, isPlatformAdmin, requireOrgAdmin, type Actor } from "../authorization/actor.ts";

const MAX_REASON_LENGTH = 500;

/** A member of the org the admin manages; anyone else reads as not found. */
async function memberOf(ctx: Context, orgId: string, userId: string): Promise<User> {
  const id = requireId("user_id", userId);
  const [membership, user] = await Promise.all([ctx.stores.orgs.findMembership(orgId, id), ctx.stores.users.findById(id)]);
  if (membership === null || user === null) throw new GatehouseError("not_found", "membership not found");
  return user;
}

/** Any user, for platform admins only (the operator's command line). */
async function anyUser(ctx: Context, actor: Actor, userId: string): Promise<User> {
  if (!(await isPlatformAdmin(ctx, actor))) throw new GatehouseError("permission_denied", "platform admin role required");
  const user = await ctx.stores.users.findById(requireId("user_id", userId));
  if (user === null) throw new GatehouseError("not_found", "user not found");
  return user;
}

/** What an org admin sees of a member's factors: which kinds they hold, in a fixed order, one each. */
export interface MemberFactorKinds {
  readonly kinds: readonly FactorKind[];
}

const KIND_ORDER: readonly FactorKind[] = ["webauthn", "totp", "sms", "recovery_code"];

/**
 * Which factor kinds a member holds, never their labels, times or phone: the factors are the account's, in
 * every org, and an org admin learns only what their policy needs (can this member meet a phishing-resistant
 * rule, will a reset leave them without any). The operator's command line sees the full view.
 */
export async function listUserFactors(ctx: Context, actor: Actor, orgId: string, userId: string): Promise<MemberFactorKinds> {
  await requireOrgAdmin(ctx, actor, orgId);
  const view = await factorsViewOf(ctx, await memberOf(ctx, orgId, userId));
  const held = new Set<FactorKind>(view.factors.map((factor) => factor.kind));
  if (view.phoneMask !== "") held.add("sms");
  if (view.recoveryCodesLeft > 0) held.add("recovery_code");
  return { kinds: KIND_ORDER.filter((kind) => held.has(kind)) };
}

/** The full view of any user's factors (never a secret), for platform admins: the operator's command line. */
export async function listFactorsOfUser(ctx: Context, actor: Actor, userId: string): Promise<FactorsView> {
  return factorsViewOf(ctx, await anyUser(ctx, actor, userId));
}

/**
 * The audited way back for a member who lost every factor: removes their authenticator apps, passkeys and
 * recovery codes, unlocks the phone (the next MFA collects one again), and ends every session, device trust and
 * half-done sign-in of theirs, in every org. One unit of work, recorded with the admin's reason.
 */
export async function resetUserFactors(ctx: Context, actor: Actor, orgId: string, userId: string, reason: string): Promise<void> {
  const why = requireReason(reason);
  await requireOrgAdmin(ctx, actor, orgId);
  const user = await memberOf(ctx, orgId, userId);
  // The factors are the account's, in every org: an org admin may reset only an account their org alone has,
  // or the admin of one org the owner joined could strip the factors the owner relies on in every other.
  const elsewhere = (await ctx.stores.orgs.listMembershipsOfUser(user.id)).some((membership) => membership.orgId !== orgId);
  if (elsewhere && !(await isPlatformAdmin(ctx, actor))) {
    throw new GatehouseError("permission_denied", "the user is a member of other organizations too: only a platform admin can reset their factors");
  }
  await reset(ctx, actor, orgId, user, why);
}

/** `resetUserFactors` of any user, for platform admins (the command line); recorded without an org. */
export async function resetUserFactorsOfAnyone(ctx: Context, actor: Actor, userId: string, reason: string): Promise<void> {
  const why = requireReason(reason);
  await reset(ctx, actor, null, await anyUser(ctx, actor, userId), why);
}

function requireReason(reason: string): string {
  const why = requirePlainText("reason", reason.trim());
  if (why === "") throw invalidArgument("reason", "is required");
  if (why.length > MAX_REASON_LENGTH) throw invalidArgument("reason", `must be at most ${MAX_REASON_LENGTH} characters`);
  return why;
}

async function reset(ctx: Context, actor: Actor, orgId: string | null, user: User, why: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const subject = adminSubject(actor, orgId, { userId: user.id });
    let removed = 0;
    for (const factor of FACTORS) removed += await factor.removeAll(tx, user);
    await endSignInsEverywhere(tx, user.id, subject, "factors_reset");
    await recordAudit(tx, "factors.reset", subject, { reason: why, removed });
  });
}
