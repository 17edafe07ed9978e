import type { Context } from "./context.ts";
import type { CredentialCheck } from "./credential-check.ts";
import { invalidArgument, isGatehouseError, rateLimited } from "./errors.ts";
import { DEFAULT_DEVICE_FINGERPRINT, requirePassword } from "./input.ts";
import type { User } from "./model.ts";
import type { RateLimitDecision, RateLimitReceipt } from "./ports.ts";
import { rateLimitKeys } from "./rate-limits.ts";

/**
 * The account's guessing budget, spent by every check of a password (Login, ChangePassword's current password).
 * One unit is taken before the password is checked, so parallel guesses cannot pass it and a right password
 * past it is refused too (fail closed); a right password gives its unit back, and so does a check the full
 * hash queue refused, since no password was checked. A device that had a session for this user spends a
 * budget of its own at Login, so a flood of guesses from elsewhere cannot lock the owner out of a device they
 * used before. Every other check for the email (an unknown email too, so the refusal tells nothing about which
 * emails have accounts) shares one.
 */
export async function takeSignInGuess(ctx: Context, email: string, user: User | null, fingerprint: string): Promise<RateLimitDecision> {
  // Every caller that sends no fingerprint is the one default device: it identifies nobody, so it is never known.
  if (fingerprint === DEFAULT_DEVICE_FINGERPRINT) return takeAccountGuess(ctx, email);
  // Asked for an unknown email too (no user has the empty id), so both cost the same reads.
  const known = (await ctx.stores.devices.findWithSession(user?.id ?? "", ctx.fingerprints.hash(fingerprint))) !== null;
  if (user !== null && known) return takeGuess(ctx, rateLimitKeys.passwordFailuresPerKnownDevice(user.id, fingerprint));
  return takeAccountGuess(ctx, email);
}

/** A unit of the budget the email's checks share. */
export const takeAccountGuess = (ctx: Context, email: string) => takeGuess(ctx, rateLimitKeys.passwordFailuresPerAccount(email));

function takeGuess(ctx: Context, key: string): Promise<RateLimitDecision> {
  const { limit, windowMs } = ctx.config.passwordFailuresPerAccount;
  return ctx.stores.rateLimiter.consume(key, limit, windowMs, ctx.clock.now());
}

/** The seconds until a refused guess could be taken: when the budget's oldest unit leaves the window. */
export const secondsUntilGuess = (ctx: Context, refused: Extract<RateLimitDecision, { allowed: false }>) =>
  Math.max(1, Math.ceil((refused.retryAt - ctx.clock.now()) / 1000));

/** `checkCredentials`, giving the guess's unit back when the full hash queue refused the check. */
export async function checkGuess(
  ctx: Context,
  checkCredentials: CredentialCheck,
  receipt: RateLimitReceipt,
  user: User | null,
  password: string,
  lane: string,
) {
  try {
    return await checkCredentials(user, password, lane);
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "rate_limited") await ctx.stores.rateLimiter.refund(receipt);
    throw error;
  }
}

/**
 * Checks the account's password for a signed-in user (ChangePassword's current password, a first factor's proof):
 * a guess at the account's password like a sign-in's, spending the account's budget, so a session cannot be used
 * to try passwords until one fits. Missing, malformed (as any password field) or wrong: InvalidArgument on `field`;
 * a malformed one is refused before it spends a guess.
 */
export async function requireAccountPassword(ctx: Context, checkCredentials: CredentialCheck, user: User, password: string, lane: string, field: string) {
  requirePassword(password, field);
  const budget = await takeAccountGuess(ctx, user.email);
  if (!budget.allowed) throw rateLimited(secondsUntilGuess(ctx, budget));
  if (!(await checkGuess(ctx, checkCredentials, budget.receipt, user, password, lane))) throw invalidArgument(field, "is not the account's password");
  await ctx.stores.rateLimiter.refund(budget.receipt);
}
