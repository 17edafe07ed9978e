import { proofMatches, registrantProofHashOf } from "../accounts/registrant-proof.ts";
import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { requireLinkTokenHash } from "../email/email-links.ts";
import { endSignInsEverywhere } from "../sign-in/end-sign-ins.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireAcceptablePassword } from "../passwords/password-rules.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface VerifyEmailInput {
  readonly token: string;
  /** What Register returned to the client that registered; absent when the link is opened anywhere else. */
  readonly registrantProof?: string;
  /** The password of whoever opened the link: required unless `registrantProof` is the link's own. */
  readonly newPassword?: string;
  /** Who is asking (the client IP at the server): password hashes are queued per client. */
  readonly clientKey?: string;
  readonly request?: RequestMeta;
}

/** Asked of a link opened without its registrant proof; the web client shows a password field for it. */
const PASSWORD_NEEDED = "is required: choose the account's password (this link was opened without the browser that registered)";

/**
 * Consumes a verification link (single use) and marks its account's email verified; `invalid_link` otherwise.
 * The password chosen at Register survives only when the link comes with that registration's proof: whoever
 * holds the mailbox without it (the address's real owner, when a stranger registered it) gives `newPassword`,
 * and the account is taken back as a reset does (the registrant's password, name and phone go, as would any
 * session). Without either, `invalid_argument` on `new_password`, and the link stays usable.
 */
export async function verifyEmail(ctx: Context, input: VerifyEmailInput): Promise<void> {
  const tokenHash = requireLinkTokenHash("token", input.token);
  const proofHash = registrantProofHashOf("registrant_proof", input.registrantProof);
  const newPassword = input.newPassword ?? "";
  const pending = await ctx.stores.emailTokens.find(tokenHash, "verify_email", ctx.clock.now());
  const user = pending === null ? null : await ctx.stores.users.findById(pending.userId);
  if (pending === null || user === null) throw new GatehouseError("invalid_link");
  const keepsPassword = newPassword === "" && proofMatches(proofHash, pending.registrantProofHash);
  if (!keepsPassword && newPassword === "") throw invalidArgument("new_password", PASSWORD_NEEDED);
  const password = keepsPassword ? null : requireAcceptablePassword("new_password", newPassword, user.email);
  const passwordHash = password === null ? null : await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const token = await tx.stores.emailTokens.consume(tokenHash, "verify_email", now);
    if (token?.userId !== user.id) throw new GatehouseError("invalid_link");
    const subject = { actor: { kind: "user", userId: user.id }, userId: user.id, request: input.request } as const;
    if (passwordHash === null) {
      if (await tx.stores.users.markEmailVerified(user.id, now)) await recordAudit(tx, "email.verified", subject, {});
      return;
    }
    if (!(await tx.stores.users.reclaimUnverified(user.id, passwordHash, now))) return;
    await tx.stores.emailTokens.deleteByUser(user.id, "verify_email");
    await tx.stores.emailTokens.deleteByUser(user.id, "reset_password");
    await endSignInsEverywhere(tx, user.id, subject, "password_changed");
    await recordAudit(tx, "email.verified", subject, {});
    await recordAudit(tx, "password.changed", subject, { reason: "reset", reclaimed: true });
  });
}
