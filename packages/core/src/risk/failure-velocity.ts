import type { Context } from "../context.ts";
import type { RateLimitReceipt } from "../ports.ts";
import { rateLimitKeys, refundAll } from "../rate-limits/rate-limits.ts";
import { FAILURE_VELOCITY_LIMITS, type FailureVelocity } from "./rules.ts";

const HOUR_MS = 3_600_000;

/** The failed sign-ins before this one, and this one's units: kept if its password fails, given back if it matches. */
export interface TakenVelocity {
  readonly velocity: FailureVelocity;
  readonly receipts: readonly RateLimitReceipt[];
}

/**
 * Counts a password sign-in in the last hour's logs per client address, AS number and account, before its
 * password is checked, so that concurrent guesses count too. Each log is capped at its rule's threshold: past
 * it the rule fires anyway, and the log stays small whatever an attacker sends.
 */
export async function takeFailureVelocity(ctx: Context, email: string, clientIp: string | undefined): Promise<TakenVelocity> {
  const asn = clientIp === undefined || clientIp === "" ? null : ctx.ipLocator.locate(clientIp).asn;
  const logs: { readonly name: keyof FailureVelocity; readonly key: string }[] = [
    { name: "perAccount", key: rateLimitKeys.signInFailuresPerAccount(ctx, email) },
  ];
  if (clientIp !== undefined && clientIp !== "") logs.push({ name: "perIp", key: rateLimitKeys.signInFailuresPerClient(ctx, clientIp) });
  if (asn !== null) logs.push({ name: "perAsn", key: rateLimitKeys.signInFailuresPerAsn(asn) });
  const decisions = await ctx.stores.rateLimiter.consumeMany(
    logs.map(({ name, key }) => ({ key, limit: FAILURE_VELOCITY_LIMITS[name], windowMs: HOUR_MS })),
    ctx.clock.now(),
  );
  const velocity = { perIp: 0, perAsn: 0, perAccount: 0 };
  const receipts: RateLimitReceipt[] = [];
  for (const [i, decision] of decisions.entries()) {
    // A full log took nothing and holds the threshold's worth of failures already.
    velocity[logs[i]!.name] = decision.allowed ? decision.count - 1 : decision.count;
    if (decision.allowed) receipts.push(decision.receipt);
  }
  return { velocity, receipts };
}

/**
 * The failed password sign-ins so far, for a sign-in that checks no password (a passkey's): the logs have no
 * read of their own, so a unit is taken in each and given back at once. Nothing is left counted.
 */
export async function readFailureVelocity(ctx: Context, email: string, clientIp: string | undefined): Promise<FailureVelocity> {
  const taken = await takeFailureVelocity(ctx, email, clientIp);
  await refundFailureVelocity(ctx, taken);
  return taken.velocity;
}

/** A matching password (or one never checked) is no failure: its units go back, outside any unit of work. */
export async function refundFailureVelocity(ctx: Context, taken: TakenVelocity): Promise<void> {
  await refundAll(ctx.stores.rateLimiter, taken.receipts);
}
