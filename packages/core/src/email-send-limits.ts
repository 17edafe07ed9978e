import type { Context } from "./context.ts";
import { consumeAll } from "./rate-limits.ts";

/**
 * Takes one email send for `address` and for the client IP (when known), or throws `rate_limited`.
 * The unit is taken whether or not an account has the address, so the limit tells nothing about
 * accounts. A store failure rejects the request: the limit fails closed.
 */
export async function takeEmailSend(ctx: Context, address: string, clientIp: string | undefined): Promise<void> {
  const limits = [{ name: "email_sends_per_address", key: `email-send:address:${address}`, windows: [ctx.config.emailSendsPerAddress] }] as const;
  const client =
    clientIp === undefined || clientIp === ""
      ? []
      : ([{ name: "email_sends_per_client", key: `email-send:client:${clientIp}`, windows: [ctx.config.emailSendsPerClient] }] as const);
  const consumed = await consumeAll(ctx.stores.rateLimiter, [...limits, ...client], ctx.clock.now());
  if (!consumed.allowed) throw consumed.refusal;
}
