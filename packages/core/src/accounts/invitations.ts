import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { linkTo, newLinkToken, requireLinkTokenHash, sendEmail, sendInBackground, signInLink } from "../email/email-links.ts";
import { takeEmailSend } from "../email/email-send-limits.ts";
import { addedToOrgMessage, describeDuration, invitationMessage } from "../email/email-messages.ts";
import { endSignInsEverywhere } from "../sign-in/end-sign-ins.ts";
import { GatehouseError, isGatehouseError } from "../errors.ts";
import { newId } from "../ids.ts";
import { requireEmail, requireId } from "../input.ts";
import type { Invitation, Membership, OrgRole } from "../model.ts";
import { requireAcceptablePassword } from "../passwords/password-rules.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { adminSubject, parseOrgRole, requireOrgAdmin, type Actor } from "../authorization/actor.ts";

/** An invitation as an admin sees it: never its token. */
export interface InvitationView {
  readonly id: string;
  readonly orgId: string;
  readonly email: string;
  readonly role: OrgRole;
  readonly invitedBy: string | null;
  readonly expiresAt: number;
  readonly createdAt: number;
}

export type AddMemberResult =
  /** The operator's command line named a verified account, or the account already was a member (a new role): it is a member now, and its owner was told by email. */
  | { readonly status: "added"; readonly membership: Membership }
  /** Anything else: an invitation was emailed; its owner accepting it makes the membership. */
  | { readonly status: "invited"; readonly invitation: InvitationView };

function viewOf(invitation: Invitation): InvitationView {
  const { id, orgId, email, role, invitedBy, expiresAt, createdAt } = invitation;
  return { id, orgId, email, role, invitedBy, expiresAt, createdAt };
}

async function orgName(ctx: Context, orgId: string): Promise<string> {
  return (await ctx.stores.orgs.findById(orgId))?.name ?? "an organization";
}

/**
 * Invites the email: only the mailbox's owner, through the emailed link, joins the org with it. An existing
 * account is its owner's to bring (consent: until they accept, the org sees nothing of it, not even that it
 * exists), and an unverified one may be someone else's pre-registration of the address. Only the operator's
 * command line (platform trust, audited) adds a verified account at once, and tells its owner; a member of the
 * org (who accepted before) just takes the new role. Inviting again replaces the earlier invitation of that
 * email to the org (its link dies).
 */
export async function addMember(ctx: Context, actor: Actor, orgId: string, email: string, role: OrgRole): Promise<AddMemberResult> {
  await requireOrgAdmin(ctx, actor, orgId);
  // Typed for TypeScript callers; still checked for JavaScript ones, since it is stored as text.
  const checkedRole = parseOrgRole(role);
  const address = requireEmail(email);
  // Each answer emails the address (a notice or an invitation): an org admin can neither bomb a mailbox nor mail
  // the world through the service. The org's invitation budgets only, which no anonymous caller, no other org
  // and no reset spends. An operator's own calls (the command line's imports) count per address only.
  const charge = await takeEmailSend(ctx, address, { kind: "invitation", orgId, byOperator: actor.kind !== "user" });
  const name = await orgName(ctx, orgId);
  const user = await ctx.stores.users.findByEmail(address);
  // A member already consented to this org: a new role needs no second acceptance.
  const consented = user !== null && (actor.kind === "system" || (await ctx.stores.orgs.findMembership(orgId, user.id)) !== null);
  if (user !== null && user.emailVerifiedAt !== null && consented) {
    const membership: Membership = { orgId, userId: user.id, role: checkedRole };
    await inTransaction(ctx, async (tx) => {
      await tx.stores.orgs.putMembership(membership);
      await recordAudit(tx, "member.added", adminSubject(actor, orgId, { userId: user.id }), { role: checkedRole });
    });
    // A notice only: the membership stands whether or not it is delivered (the sender logs a failure).
    sendInBackground(ctx, addedToOrgMessage(user.email, name, signInLink(ctx)), charge);
    return { status: "added", membership };
  }
  const link = newLinkToken(ctx);
  const now = ctx.clock.now();
  const invitation: Invitation = {
    id: newId(ctx.random),
    orgId,
    email: address,
    role: checkedRole,
    tokenHash: link.tokenHash,
    invitedBy: actor.kind === "user" ? actor.userId : null,
    expiresAt: now + ctx.config.invitationTtlMs,
    createdAt: now,
  };
  await inTransaction(ctx, async (tx) => {
    await tx.stores.invitations.put(invitation);
    await recordAudit(tx, "invitation.created", adminSubject(actor, orgId), { invitationId: invitation.id, email: address, role: checkedRole });
  });
  await sendEmail(ctx, invitationMessage(address, name, linkTo(ctx, "accept-invitation", link.token), describeDuration(ctx.config.invitationTtlMs)), charge);
  return { status: "invited", invitation: viewOf(invitation) };
}

export async function listInvitations(ctx: Context, actor: Actor, orgId: string): Promise<InvitationView[]> {
  await requireOrgAdmin(ctx, actor, orgId);
  return (await ctx.stores.invitations.listByOrg(orgId, ctx.clock.now())).map(viewOf);
}

/** Its link stops working at once. */
export async function revokeInvitation(ctx: Context, actor: Actor, orgId: string, invitationId: string): Promise<void> {
  await requireOrgAdmin(ctx, actor, orgId);
  if (!(await ctx.stores.invitations.delete(orgId, requireId("invitation_id", invitationId)))) throw new GatehouseError("not_found", "invitation not found");
}

export interface AcceptInvitationInput {
  readonly token: string;
  /** The new account's password; unused (may be empty) when the invited email has a verified account. */
  readonly password: string;
  /** Who is asking (the client IP at the server): password hashes are queued per client. */
  readonly clientKey?: string;
  readonly request?: RequestMeta;
}

export interface AcceptedInvitation {
  readonly userId: string;
  readonly orgId: string;
}

/** Creates the invited account, verified (the link proved the mailbox); false when the email was taken meanwhile. */
async function createVerifiedUser(tx: Context, id: string, email: string, passwordHash: string): Promise<boolean> {
  const now = tx.clock.now();
  try {
    await tx.stores.users.create({
      id,
      email,
      displayName: "",
      passwordHash,
      phone: null,
      phoneVerified: false,
      platformAdmin: false,
      createdAt: now,
      emailVerifiedAt: now,
    });
    return true;
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "already_exists") return false;
    throw error;
  }
}

/**
 * The link proved the mailbox, and accepting is its owner's consent. A verified account joins as it is, and
 * `password` is not used (an empty one is fine). Otherwise `password` is required (`invalid_argument` on
 * `password`, the invitation stays usable): no account, one is created, verified, with it; an unverified account
 * (someone registered the email before its owner) is taken back, whatever its earlier holder set goes (password,
 * display name, phone, sessions, device trust, half-done sign-ins) and `password` is set. Then the membership is
 * added. The invitation is single use: of concurrent acceptances exactly one succeeds.
 */
export async function acceptInvitation(ctx: Context, input: AcceptInvitationInput): Promise<AcceptedInvitation> {
  const tokenHash = requireLinkTokenHash("token", input.token);
  const pending = await ctx.stores.invitations.findByTokenHash(tokenHash, ctx.clock.now());
  if (pending === null) throw new GatehouseError("invalid_link");
  const joinsAsIs = (await ctx.stores.users.findByEmail(pending.email))?.emailVerifiedAt != null;
  const password = joinsAsIs ? null : requireAcceptablePassword("password", input.password, pending.email);
  const passwordHash = password === null ? null : await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  const newUserId = newId(ctx.random);
  return inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const invitation = await tx.stores.invitations.consume(tokenHash, now);
    if (invitation === null) throw new GatehouseError("invalid_link");
    const created =
      passwordHash !== null &&
      (await tx.stores.users.findByEmail(invitation.email)) === null &&
      (await createVerifiedUser(tx, newUserId, invitation.email, passwordHash));
    // Created here, or (also when a Register won the race to create it) the account the email already has.
    const existing = created ? null : await tx.stores.users.findByEmail(invitation.email);
    // Users are never deleted: a taken email still has its account. Not a GatehouseError, so the invitation's consumption rolls back.
    if (!created && existing === null) throw new Error("the invited email's account disappeared while accepting");
    const userId = existing?.id ?? newUserId;
    const subject = { actor: { kind: "user", userId }, orgId: invitation.orgId, userId, request: input.request } as const;
    let reclaimed = false;
    if (created) {
      await recordAudit(tx, "user.registered", subject, { emailVerified: true });
    } else if (existing?.emailVerifiedAt === null) {
      // An account seen verified above stays verified: one unverified now was unverified then, and a password was checked.
      if (passwordHash === null) throw new Error("the invited account lost its verification while accepting");
      reclaimed = await tx.stores.users.reclaimUnverified(userId, passwordHash, now);
    }
    if (reclaimed) {
      await endSignInsEverywhere(tx, userId, subject, "password_changed");
      await tx.stores.emailTokens.deleteByUser(userId, "verify_email");
      await tx.stores.emailTokens.deleteByUser(userId, "reset_password");
      await recordAudit(tx, "email.verified", subject, {});
    }
    await tx.stores.orgs.putMembership({ orgId: invitation.orgId, userId, role: invitation.role });
    await recordAudit(tx, "invitation.accepted", subject, { invitationId: invitation.id, role: invitation.role, reclaimed });
    await recordAudit(tx, "member.added", subject, { role: invitation.role });
    return { userId, orgId: invitation.orgId };
  });
}
