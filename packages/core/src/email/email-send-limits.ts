import type { Context } from "../context.ts";
import { consumeAll, rateLimitKeys, type NamedLimit } from "../rate-limits/rate-limits.ts";
import type { RateLimitReceipt } from "../ports.ts";

/**
 * Whose budget an email spends. Each has its own per-address budget, so no sender can spend another's: an
 * anonymous caller (Register, RequestPasswordReset from a network the account does not know), who also spends
 * the client's; the account's owner asking from a network it signed in from recently; an org's admins'
 * reset links and that org's invitations, which also spend the org's (an operator's own calls, the command
 * line's, count per address only); the unblock links of the guessing ceiling; and the new-location or
 * new-device notices of the risk engine.
 */
export type EmailBudget =
  | { readonly kind: "anonymous"; readonly clientIp?: string | undefined }
  | { readonly kind: "owner" }
  | { readonly kind: "admin_reset" | "invitation"; readonly orgId: string; readonly byOperator: boolean }
  | { readonly kind: "unblock" }
  | { readonly kind: "sign_in_notice" };

/**
 * Takes one email send for `address` from `budget`, or throws `rate_limited`. The unit is taken whether or not
 * an account has the address, so the limit tells nothing about accounts. A store failure rejects the
 * request: the limit fails closed. A send that then fails without reaching anyone (no SMTP server, a refusing
 * reply) gives the units back (`sendEmail`), so an outage of the mail server cannot spend anyone's budget.
 */
export async function takeEmailSend(ctx: Context, address: string, budget: EmailBudget): Promise<EmailCharge> {
  const consumed = await consumeAll(ctx.stores.rateLimiter, emailSendLimits(ctx, address, budget), ctx.clock.now());
  if (!consumed.allowed) throw consumed.refusal;
  return { receipts: consumed.receipts };
}

/** `takeEmailSend`, answering null instead of throwing when a limit refuses: for a send that must fail quietly. */
export async function tryEmailSend(ctx: Context, address: string, budget: EmailBudget): Promise<EmailCharge | null> {
  const consumed = await consumeAll(ctx.stores.rateLimiter, emailSendLimits(ctx, address, budget), ctx.clock.now());
  return consumed.allowed ? { receipts: consumed.receipts } : null;
}

/** The units one email send took: given back when the sender says the message went nowhere (`sendEmail`). */
export interface EmailCharge {
  readonly receipts: readonly RateLimitReceipt[];
}

/**
 * Takes one unit of the client's budget for the emails anonymous callers ask for, or throws `rate_limited`: the
 * refusal tells the caller about themselves only, never about the address they named.
 */
export async function takeClientEmailRequest(ctx: Context, clientIp: string): Promise<void> {
  const limits = [{ name: "email_sends_per_client", key: rateLimitKeys.emailSendsPerClient(clientIp), windows: [ctx.config.emailSendsPerClient] }] as const;
  const consumed = await consumeAll(ctx.stores.rateLimiter, limits, ctx.clock.now());
  if (!consumed.allowed) throw consumed.refusal;
}

function emailSendLimits(ctx: Context, address: string, budget: EmailBudget): NamedLimit[] {
  const { config } = ctx;
  const perAddress = (scope: string, windows = [config.emailSendsPerAddress]): NamedLimit => ({
    name: "email_sends_per_address",
    key: rateLimitKeys.emailSendsPerAddress(ctx, scope, address),
    windows,
  });
  switch (budget.kind) {
    case "anonymous":
      return [
        perAddress("anonymous"),
        ...(budget.clientIp
          ? [{ name: "email_sends_per_client", key: rateLimitKeys.emailSendsPerClient(budget.clientIp), windows: [config.emailSendsPerClient] } as const]
          : []),
      ];
    case "owner":
      return [perAddress("owner")];
    case "unblock":
      return [perAddress("unblock", [config.unblockEmailsPerAddress])];
    case "sign_in_notice":
      return [perAddress("sign_in_notice")];
    case "admin_reset":
    case "invitation":
      if (budget.byOperator) return [perAddress(`${budget.kind}:operator`)];
      return [
        perAddress(`${budget.kind}:${budget.orgId}`),
        { name: "email_sends_per_org", key: rateLimitKeys.emailSendsPerOrg(budget.orgId), windows: [config.emailSendsPerOrg] },
      ];
  }
}
