import type { Context } from "../context.ts";
import { clientNetwork } from "../rate-limits/client-network.ts";

/** What the store keeps of a client's network: a keyed hash, so the table lists no address. */
const networkOf = (ctx: Context, clientIp: string) => ctx.limitSubject(clientNetwork(clientIp));

/**
 * Whether the account signed in from the client's network within `familiarNetworkMs`. A caller without a
 * client IP (an embedder's own call) is on no network. Asked for an unknown account too (no user has the
 * empty id), so both cost the same reads.
 */
export async function isFamiliarNetwork(ctx: Context, userId: string | null, clientIp: string | undefined): Promise<boolean> {
  if (clientIp === undefined || clientIp === "") return false;
  const since = ctx.clock.now() - ctx.config.familiarNetworkMs;
  return ctx.stores.signInNetworks.seenSince(userId ?? "", networkOf(ctx, clientIp), since);
}

/** Inside the unit of work that issues a session: the client's network becomes (or stays) familiar. */
export async function recordSignInNetwork(tx: Context, userId: string, clientIp: string | undefined): Promise<void> {
  if (clientIp === undefined || clientIp === "") return;
  const now = tx.clock.now();
  await tx.stores.signInNetworks.record(userId, networkOf(tx, clientIp), now, now - tx.config.familiarNetworkMs);
}
