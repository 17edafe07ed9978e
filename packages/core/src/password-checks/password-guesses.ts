import type { Context } from "../context.ts";
import type { CredentialCheck } from "./credential-check.ts";
import { invalidArgument, isGatehouseError, type GatehouseError } from "../errors.ts";
import { DEFAULT_DEVICE_FINGERPRINT, requirePassword } from "../input.ts";
import type { User } from "../model.ts";
import type { RateLimitReceipt } from "../ports.ts";
import { consumeAll, rateLimitKeys, refundAll, type NamedLimit } from "../rate-limits/rate-limits.ts";
import { isFamiliarNetwork } from "../throttling/sign-in-networks.ts";
import { offerUnblockLink } from "../throttling/unblock-links.ts";

export type GuessBudget =
  /** `unblock`: the sign-in passed the ceiling with the owner's link, which a right password then uses up. */
  | { readonly allowed: true; readonly receipts: RateLimitReceipt[]; readonly unblock: UsedUnblockLink | null }
  | { readonly allowed: false; readonly refusal: GatehouseError };

export interface UsedUnblockLink {
  readonly tokenHash: string;
  /** The ceiling's refusal, answered when a concurrent sign-in used the link first. */
  readonly refusal: GatehouseError;
}

export interface SignInGuess {
  /** Normalised. */
  readonly email: string;
  readonly user: User | null;
  readonly fingerprint: string;
  readonly clientIp?: string | undefined;
  /** SHA-256 of the emailed unblock link's token, when the sign-in holds one. */
  readonly unblockTokenHash?: string | undefined;
}

/**
 * The guessing budgets a sign-in's password check spends (docs/security.md, G1, G2 and G4). One unit is taken
 * before the password is checked, so parallel guesses cannot pass a budget and a right password past it is
 * refused too (fail closed); a right password gives its units back, and so does a check the full hash queue
 * refused, since no password was checked.
 *
 * - A device that had a session for this user spends a budget of its own (so does nothing else).
 * - Every other check spends the budget of its client network (an IPv4 /24, an IPv6 /64) for the email: a
 *   stranger's failures elsewhere never touch the owner's network.
 * - Unless the account signed in from that network recently, it also spends the account's ceiling, far above a
 *   network's, which bounds what many networks together may try. Past the ceiling the owner is mailed an
 *   unblock link; a sign-in holding it passes the ceiling (not its network's budget) once.
 *
 * The keys hold a keyed hash of the email, and an unknown email is throttled exactly as a registered one, so
 * a refusal tells nothing about which emails have accounts.
 */
export async function takeSignInGuess(ctx: Context, guess: SignInGuess): Promise<GuessBudget> {
  const { email, user, fingerprint, clientIp } = guess;
  const { config } = ctx;
  // Every caller that sends no fingerprint is the one default device: it identifies nobody, so it is never known.
  if (fingerprint !== DEFAULT_DEVICE_FINGERPRINT) {
    // Asked for an unknown email too (no user has the empty id), so both cost the same reads.
    const known = (await ctx.stores.devices.findWithSession(user?.id ?? "", ctx.fingerprints.hash(fingerprint))) !== null;
    if (user !== null && known) {
      return take(ctx, [
        {
          name: "password_failures_per_device",
          key: rateLimitKeys.passwordFailuresPerKnownDevice(user.id, fingerprint),
          windows: [config.passwordFailuresPerNetwork],
        },
      ]);
    }
  }
  const network: NamedLimit = {
    name: "password_failures_per_network",
    key: rateLimitKeys.passwordFailuresPerNetwork(ctx, email, clientIp ?? ""),
    windows: [config.passwordFailuresPerNetwork],
  };
  if (await isFamiliarNetwork(ctx, user?.id ?? null, clientIp)) return take(ctx, [network]);
  const ceiling: NamedLimit = {
    name: "password_failures_per_account",
    key: rateLimitKeys.passwordFailuresPerAccount(ctx, email),
    windows: [config.passwordFailuresPerAccount],
  };
  const both = await consumeAll(ctx.stores.rateLimiter, [network, ceiling], ctx.clock.now());
  if (both.allowed) return { allowed: true, receipts: both.receipts, unblock: null };
  if (both.limit !== "password_failures_per_account") return { allowed: false, refusal: both.refusal };
  const unblock = guess.unblockTokenHash;
  if (unblock !== undefined && user !== null && (await ctx.stores.emailTokens.find(unblock, "unblock_sign_in", ctx.clock.now()))?.userId === user.id) {
    const alone = await take(ctx, [network]);
    return alone.allowed ? { ...alone, unblock: { tokenHash: unblock, refusal: both.refusal } } : alone;
  }
  await offerUnblockLink(ctx, user);
  return { allowed: false, refusal: both.refusal };
}

async function take(ctx: Context, limits: readonly NamedLimit[]): Promise<GuessBudget> {
  const taken = await consumeAll(ctx.stores.rateLimiter, limits, ctx.clock.now());
  return taken.allowed ? { allowed: true, receipts: taken.receipts, unblock: null } : { allowed: false, refusal: taken.refusal };
}

/** `checkCredentials`, giving the guess's units back when the full hash queue refused the check. */
export async function checkGuess(
  ctx: Context,
  checkCredentials: CredentialCheck,
  receipts: readonly RateLimitReceipt[],
  user: User | null,
  password: string,
  lane: string,
  started?: () => void,
) {
  try {
    return await checkCredentials(user, password, lane, started);
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "rate_limited") await refundAll(ctx.stores.rateLimiter, receipts);
    throw error;
  }
}

/**
 * Checks the account's password for a signed-in user (ChangePassword's current password, a first factor's proof):
 * a guess at the account's password, so a session cannot be used to try passwords until one fits. It spends a
 * budget of the user's own, which no stranger's sign-in failures touch. Missing, malformed (as any password
 * field) or wrong: InvalidArgument on `field`; a malformed one is refused before it spends a guess.
 */
export async function requireAccountPassword(ctx: Context, checkCredentials: CredentialCheck, user: User, password: string, lane: string, field: string) {
  requirePassword(password, field);
  const { config } = ctx;
  const budget = await take(ctx, [
    { name: "password_failures_per_user", key: rateLimitKeys.passwordFailuresPerSignedInUser(user.id), windows: [config.passwordFailuresPerNetwork] },
  ]);
  if (!budget.allowed) throw budget.refusal;
  if (!(await checkGuess(ctx, checkCredentials, budget.receipts, user, password, lane))) throw invalidArgument(field, "is not the account's password");
  await refundAll(ctx.stores.rateLimiter, budget.receipts);
}
