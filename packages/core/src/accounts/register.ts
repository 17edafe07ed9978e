import { recordAudit, type RequestMeta } from "../audit/record.ts";
import { newRegistrantProof } from "../accounts/registrant-proof.ts";
import type { Context } from "../context.ts";
import { linkTo, newLinkToken, sendEmail, signInLink } from "../email/email-links.ts";
import { alreadyRegisteredMessage, describeDuration, verificationMessage } from "../email/email-messages.ts";
import { takeEmailSend } from "../email/email-send-limits.ts";
import { GatehouseError, isGatehouseError } from "../errors.ts";
import { newId } from "../ids.ts";
import { optionalDisplayName, requireEmail } from "../input.ts";
import { requireAcceptablePassword } from "../passwords/password-rules.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface RegisterInput {
  readonly email: string;
  readonly password: string;
  readonly displayName?: string;
  readonly platformAdmin?: boolean;
  /**
   * The caller vouches for the mailbox (the operator's command line, an embedder that verified it): the
   * account is created verified, nothing is emailed, and a taken email is `already_exists`. Without it
   * (the public RPC) the answer never tells whether the email was taken.
   */
  readonly emailVerified?: boolean;
  /** Who is asking (the client IP at the server): password hashes are queued per client. Absent: one shared lane. */
  readonly clientKey?: string;
  /** Recorded with the audit event; its client IP is the per-client email send limit's key. */
  readonly request?: RequestMeta;
}

export interface Registered {
  /** Opaque: the new account's id, or a fresh id that names no account (a taken or pending email). */
  readonly userId: string;
  /**
   * For the client that registered, to send with the verification link (VerifyEmail's `registrantProof`): only
   * then does the password given here survive verification. Same shape whether or not the email was taken;
   * empty when nothing is emailed (vouched for, or verification off).
   */
  readonly registrantProof: string;
}

/**
 * Creates a user with no phone (the phone is collected at the first MFA). Unless vouched for, the account
 * is unverified and a single-use verification link is emailed, bound to a registrant proof returned here:
 * whoever opens the link without that proof chooses the password (docs/decisions/registrant-proof.md). An
 * email still pending gets a fresh link, and the account is restarted with this call's password and name:
 * nothing of the earlier registration stays (its links and proof die). For a verified email nothing is
 * created and the owner is emailed instead. The answer has one shape throughout: `userId` is then a fresh id
 * that names no account, and one password hash is computed either way, so the timing does not tell either.
 */
export async function register(ctx: Context, input: RegisterInput): Promise<Registered> {
  const email = requireEmail(input.email);
  const password = requireAcceptablePassword("password", input.password, email);
  const displayName = optionalDisplayName(input.displayName);
  const vouched = input.emailVerified === true;
  const verified = vouched || ctx.config.emailVerification === "off";
  const charge = verified ? undefined : await takeEmailSend(ctx, email, { kind: "anonymous", clientIp: input.request?.clientIp });
  const userId = newId(ctx.random);
  const passwordHash = await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  const link = verified ? null : newLinkToken(ctx);
  const proof = verified ? null : newRegistrantProof(ctx);
  const registered: Registered = { userId, registrantProof: proof?.proof ?? "" };
  const actor = vouched ? ({ kind: "system" } as const) : ({ kind: "anonymous" } as const);
  const now = ctx.clock.now();
  const verificationLink = (userOfLink: string) =>
    link === null || proof === null
      ? null
      : ({
          tokenHash: link.tokenHash,
          purpose: "verify_email",
          userId: userOfLink,
          expiresAt: now + ctx.config.emailVerificationTtlMs,
          createdAt: now,
          registrantProofHash: proof.proofHash,
        } as const);
  try {
    await inTransaction(ctx, async (tx) => {
      await tx.stores.users.create({
        id: userId,
        email,
        displayName,
        passwordHash,
        phone: null,
        phoneVerified: false,
        platformAdmin: input.platformAdmin ?? false,
        createdAt: now,
        emailVerifiedAt: verified ? now : null,
      });
      const token = verificationLink(userId);
      if (token !== null) await tx.stores.emailTokens.create(token);
      await recordAudit(tx, "user.registered", { actor, userId, request: input.request }, { emailVerified: verified });
    });
  } catch (error) {
    if (!isGatehouseError(error) || error.kind !== "already_exists") throw error;
    if (vouched) throw new GatehouseError("already_exists", "an account with this email already exists");
    if (verified) return registered;
    const restarted = await inTransaction(ctx, async (tx) => {
      const pending = await tx.stores.users.findByEmail(email);
      const token = pending === null ? null : verificationLink(pending.id);
      if (pending === null || token === null || !(await tx.stores.users.restartRegistration(pending.id, passwordHash, displayName))) return false;
      await tx.stores.emailTokens.deleteByUser(pending.id, "verify_email");
      await tx.stores.emailTokens.create(token);
      await recordAudit(tx, "user.registered", { actor, userId: pending.id, request: input.request }, { emailVerified: false });
      return true;
    });
    if (!restarted) {
      await sendEmail(ctx, alreadyRegisteredMessage(email, signInLink(ctx)), charge);
      return registered;
    }
  }
  if (link !== null)
    await sendEmail(ctx, verificationMessage(email, linkTo(ctx, "verify-email", link.token), describeDuration(ctx.config.emailVerificationTtlMs)), charge);
  return registered;
}
