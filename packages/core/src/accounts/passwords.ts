import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import type { CredentialCheck } from "../password-checks/credential-check.ts";
import { linkTo, newLinkToken, requireLinkTokenHash, sendEmail, sendInBackground } from "../email/email-links.ts";
import { describeDuration, passwordResetMessage } from "../email/email-messages.ts";
import { takeClientEmailRequest, takeEmailSend, tryEmailSend, type EmailCharge } from "../email/email-send-limits.ts";
import { endSignInsEverywhere } from "../sign-in/end-sign-ins.ts";
import { GatehouseError } from "../errors.ts";
import { requireEmail, requireId, requirePassword } from "../input.ts";
import type { User } from "../model.ts";
import { requireAccountPassword } from "../password-checks/password-guesses.ts";
import { requireAcceptablePassword } from "../passwords/password-rules.ts";
import { isFamiliarNetwork } from "../throttling/sign-in-networks.ts";
import type { Principal } from "../results.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { adminSubject, requireOrgAdmin, type Actor } from "../authorization/actor.ts";
import type { AuditActor } from "../records/audit-events.ts";

export interface RequestPasswordResetInput {
  readonly email: string;
  /** Its client IP is the per-client send limit's key. */
  readonly request?: RequestMeta;
}

/** Stores a reset token for the user and returns the message with its link; in the caller's unit of work. */
export async function issueResetLink(ctx: Context, user: User, actor: AuditActor, orgId: string | null, request: RequestMeta | undefined) {
  const link = newLinkToken(ctx);
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    await tx.stores.emailTokens.create({
      tokenHash: link.tokenHash,
      purpose: "reset_password",
      userId: user.id,
      expiresAt: now + ctx.config.passwordResetTtlMs,
      createdAt: now,
    });
    await recordAudit(tx, "password.reset_requested", { actor, orgId, userId: user.id, request }, {});
  });
  return passwordResetMessage(user.email, linkTo(ctx, "reset-password", link.token), describeDuration(ctx.config.passwordResetTtlMs));
}

/**
 * Emails a reset link when an account has the email; answers the same, as fast, when none has. From a network
 * the account signed in from recently (its owner's) the request spends the owner's own budget and always
 * mails a fresh link. From anywhere else it spends the client's budget (refused when spent: that tells the
 * caller only about themselves) and the address's anonymous one, and while a live reset link exists it mails
 * nothing new: the mailbox holds a working link already. A spent address budget, like a live link, answers
 * the same and sends nothing, so no caller can tell them apart or spend a budget the owner needs. Delivery
 * is not awaited (its time would tell).
 */
export async function requestPasswordReset(ctx: Context, input: RequestPasswordResetInput): Promise<void> {
  const email = requireEmail(input.email);
  const clientIp = input.request?.clientIp;
  const user = await ctx.stores.users.findByEmail(email);
  const owner = await isFamiliarNetwork(ctx, user?.id ?? null, clientIp);
  let charge: EmailCharge | null;
  if (owner) {
    charge = user === null ? null : await tryEmailSend(ctx, email, { kind: "owner" });
  } else {
    if (clientIp) await takeClientEmailRequest(ctx, clientIp);
    // Asked and spent for an unknown email too, so both cost the same.
    const live = await ctx.stores.emailTokens.hasLive(user?.id ?? "", "reset_password", ctx.clock.now());
    charge = live ? null : await tryEmailSend(ctx, email, { kind: "anonymous" });
  }
  if (charge === null || user === null) return;
  sendInBackground(ctx, await issueResetLink(ctx, user, { kind: "anonymous" }, null, input.request), charge);
}

/** An org admin has a member emailed a reset link (the member chooses the new password; the admin never sees it). */
export async function sendPasswordReset(ctx: Context, actor: Actor, orgId: string, userId: string): Promise<void> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberId = requireId("user_id", userId);
  const user = (await ctx.stores.orgs.findMembership(orgId, memberId)) === null ? null : await ctx.stores.users.findById(memberId);
  if (user === null) throw new GatehouseError("not_found", "membership not found");
  // The org's budgets only (its sends to this address, all its sends): no other org and no anonymous caller can
  // spend them, and they spend nothing of the owner's.
  const charge = await takeEmailSend(ctx, user.email, { kind: "admin_reset", orgId, byOperator: actor.kind !== "user" });
  const subject = adminSubject(actor, orgId);
  await sendEmail(ctx, await issueResetLink(ctx, user, subject.actor, orgId, subject.request), charge);
}

export interface ResetPasswordInput {
  readonly token: string;
  readonly newPassword: string;
  readonly clientKey?: string;
  readonly request?: RequestMeta;
}

/**
 * Sets the password from a reset link (single use) and proves the mailbox: the email becomes verified, and
 * an account never verified is taken back from whoever registered it (their password, display name and phone
 * go). Every session, every device trust and every half-done sign-in of the user ends in every org, and the
 * user's other reset links die: the next sign-in needs the second factor, so a reset never bypasses it.
 */
export async function resetPassword(ctx: Context, input: ResetPasswordInput): Promise<void> {
  const tokenHash = requireLinkTokenHash("token", input.token);
  requirePassword(input.newPassword, "new_password");
  const pending = await ctx.stores.emailTokens.find(tokenHash, "reset_password", ctx.clock.now());
  const user = pending === null ? null : await ctx.stores.users.findById(pending.userId);
  if (user === null) throw new GatehouseError("invalid_link");
  const password = requireAcceptablePassword("new_password", input.newPassword, user.email);
  const passwordHash = await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const token = await tx.stores.emailTokens.consume(tokenHash, "reset_password", now);
    if (token === null) throw new GatehouseError("invalid_link");
    const subject = { actor: { kind: "user", userId: user.id }, userId: user.id, request: input.request } as const;
    const reclaimed = await tx.stores.users.reclaimUnverified(user.id, passwordHash, now);
    if (!reclaimed) {
      await tx.stores.users.setPasswordHash(user.id, passwordHash);
      if (await tx.stores.users.markEmailVerified(user.id, now)) await recordAudit(tx, "email.verified", subject, {});
    } else {
      await recordAudit(tx, "email.verified", subject, {});
    }
    await tx.stores.emailTokens.deleteByUser(user.id, "reset_password");
    await tx.stores.emailTokens.deleteByUser(user.id, "verify_email");
    await endSignInsEverywhere(tx, user.id, subject, "password_changed");
    await recordAudit(tx, "password.changed", subject, { reason: "reset", reclaimed });
  });
}

export interface ChangePasswordInput {
  readonly currentPassword: string;
  readonly newPassword: string;
  readonly clientKey?: string;
  readonly request?: RequestMeta;
}

/**
 * For a signed-in user who knows the current password. The user's other sessions and every device trust but
 * the current device's end, in every org: whoever else held the old password is signed out and needs the
 * second factor again. Compare-and-set on the hash, so a concurrent reset or change is never undone.
 */
export async function changePassword(ctx: Context, checkCredentials: CredentialCheck, principal: Principal, input: ChangePasswordInput): Promise<void> {
  requirePassword(input.currentPassword, "current_password");
  const user = await ctx.stores.users.findById(principal.userId);
  if (user === null) throw new GatehouseError("unauthenticated");
  const password = requireAcceptablePassword("new_password", input.newPassword, user.email);
  await requireAccountPassword(ctx, checkCredentials, user, input.currentPassword, input.clientKey ?? "", "current_password");
  // Read again: a match may have rehashed the stored hash (new parameters), and the swap compares with it.
  const current = await ctx.stores.users.findById(user.id);
  if (current === null) throw new GatehouseError("unauthenticated");
  const passwordHash = await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  await inTransaction(ctx, async (tx) => {
    if (!(await tx.stores.users.replacePasswordHash(user.id, current.passwordHash, passwordHash))) throw new GatehouseError("unauthenticated");
    const subject = { actor: { kind: "user", userId: user.id }, orgId: principal.orgId, userId: user.id, request: input.request } as const;
    await endSignInsEverywhere(tx, user.id, subject, "password_changed", { keepSessionId: principal.sessionId, keepDeviceId: principal.deviceId });
    await recordAudit(tx, "password.changed", subject, { reason: "change", reclaimed: false });
  });
}
