import type { Context } from "../context.ts";
import { linkTo, newLinkToken, sendInBackground } from "../email/email-links.ts";
import { describeDuration, unblockSignInMessage } from "../email/email-messages.ts";
import { takeEmailSend } from "../email/email-send-limits.ts";
import { isGatehouseError } from "../errors.ts";
import type { User } from "../model.ts";

/**
 * The account's guessing ceiling refused a sign-in: mails its owner a link that lets them past it once (the
 * second factor still applies). Nothing new while a live one exists, and at most `unblockEmailsPerAddress`, so
 * the strangers who keep the ceiling full do not flood the mailbox. An unverified account gets none (its
 * mailbox is not proven). Asked for an unknown email too, so a refusal costs the same reads either way; the
 * message leaves without waiting for delivery, so the answer's time does not tell whether one was sent.
 */
export async function offerUnblockLink(ctx: Context, user: User | null): Promise<void> {
  const now = ctx.clock.now();
  const live = await ctx.stores.emailTokens.hasLive(user?.id ?? "", "unblock_sign_in", now);
  if (user === null || live || user.emailVerifiedAt === null) return;
  try {
    await takeEmailSend(ctx, user.email, { kind: "unblock" });
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "rate_limited") return;
    throw error;
  }
  const link = newLinkToken(ctx);
  await ctx.stores.emailTokens.create({
    tokenHash: link.tokenHash,
    purpose: "unblock_sign_in",
    userId: user.id,
    expiresAt: now + ctx.config.unblockLinkTtlMs,
    createdAt: now,
  });
  sendInBackground(ctx, unblockSignInMessage(user.email, linkTo(ctx, "login", link.token, "unblock"), describeDuration(ctx.config.unblockLinkTtlMs)));
}
