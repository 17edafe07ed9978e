import type { Context } from "../context.ts";
import { consumeAll, type NamedLimit } from "../rate-limits/rate-limits.ts";

/** Who else an email counts against besides its address: the client IP asking, the org whose admin sends it. */
export interface EmailSender {
  readonly clientIp?: string | undefined;
  readonly orgId?: string | undefined;
}

/**
 * Takes one email send for `address`, and for the client IP and the org when given, or throws `rate_limited`.
 * The unit is taken whether or not an account has the address, so the limit tells nothing about
 * accounts. A store failure rejects the request: the limit fails closed.
 */
export async function takeEmailSend(ctx: Context, address: string, from: EmailSender = {}): Promise<void> {
  const { config } = ctx;
  const limits: NamedLimit[] = [{ name: "email_sends_per_address", key: `email-send:address:${address}`, windows: [config.emailSendsPerAddress] }];
  if (from.clientIp) limits.push({ name: "email_sends_per_client", key: `email-send:client:${from.clientIp}`, windows: [config.emailSendsPerClient] });
  if (from.orgId) limits.push({ name: "email_sends_per_org", key: `email-send:org:${from.orgId}`, windows: [config.emailSendsPerOrg] });
  const consumed = await consumeAll(ctx.stores.rateLimiter, limits, ctx.clock.now());
  if (!consumed.allowed) throw consumed.refusal;
}
