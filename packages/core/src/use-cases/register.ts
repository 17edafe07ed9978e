import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { linkTo, newLinkToken, sendEmail, signInLink } from "../email-links.ts";
import { alreadyRegisteredMessage, describeDuration, verificationMessage } from "../email-messages.ts";
import { takeEmailSend } from "../email-send-limits.ts";
import { GatehouseError, isGatehouseError } from "../errors.ts";
import { newId } from "../ids.ts";
import { optionalDisplayName, requireEmail } from "../input.ts";
import { requireAcceptablePassword } from "../passwords/password-rules.ts";
import { inTransaction } from "../unit-of-work.ts";

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

/**
 * Creates a user with no phone (the phone is collected at the first MFA). Unless vouched for, the account
 * is unverified and a single-use verification link is emailed; for a taken email nothing is created, the
 * owner is emailed instead, and the answer has the same shape: `userId` is then a fresh id that names no
 * account. Either way one password hash is computed, so the timing does not tell either.
 */
export async function register(ctx: Context, input: RegisterInput): Promise<{ userId: string }> {
  const email = requireEmail(input.email);
  const password = requireAcceptablePassword("password", input.password, email);
  const displayName = optionalDisplayName(input.displayName);
  const vouched = input.emailVerified === true;
  const verified = vouched || ctx.config.emailVerification === "off";
  if (!verified) await takeEmailSend(ctx, email, { kind: "anonymous", clientIp: input.request?.clientIp });
  const userId = newId(ctx.random);
  const passwordHash = await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  const link = verified ? null : newLinkToken(ctx);
  const now = ctx.clock.now();
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
      if (link !== null) {
        await tx.stores.emailTokens.create({
          tokenHash: link.tokenHash,
          purpose: "verify_email",
          userId,
          expiresAt: now + ctx.config.emailVerificationTtlMs,
          createdAt: now,
        });
      }
      const actor = vouched ? ({ kind: "system" } as const) : ({ kind: "anonymous" } as const);
      await recordAudit(tx, "user.registered", { actor, userId, request: input.request }, { emailVerified: verified });
    });
  } catch (error) {
    if (!isGatehouseError(error) || error.kind !== "already_exists") throw error;
    if (vouched) throw new GatehouseError("already_exists", "an account with this email already exists");
    if (!verified) await sendEmail(ctx, alreadyRegisteredMessage(email, signInLink(ctx)));
    return { userId };
  }
  if (link !== null)
    await sendEmail(ctx, verificationMessage(email, linkTo(ctx, "verify-email", link.token), describeDuration(ctx.config.emailVerificationTtlMs)));
  return { userId };
}
