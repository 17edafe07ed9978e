import type { Context } from "../context.ts";
import type { EmailCharge } from "./email-send-limits.ts";
import { definitelyNotSent, GatehouseError, invalidArgument } from "../errors.ts";
import type { EmailMessage } from "../ports.ts";
import { refundAll } from "../rate-limits/rate-limits.ts";
import { hashToken, MAX_TOKEN_LENGTH, newToken } from "../bearer-tokens.ts";

/** Marks a link token in a leaked text (secret scanners), as the bearer tokens' prefixes do. */
const LINK_TOKEN_PREFIX = "gh_el_";

/** The web client's pages an emailed link opens. */
export type LinkPage = "verify-email" | "reset-password" | "accept-invitation" | "login" | "disown-sign-in";

export interface LinkToken {
  /** Goes into the emailed link only; never stored, logged or returned. */
  readonly token: string;
  /** What the store keeps. */
  readonly tokenHash: string;
}

/** 256 random bits, stored only as SHA-256 (see bearer-tokens.ts). */
export function newLinkToken(ctx: Context): LinkToken {
  const token = newToken(LINK_TOKEN_PREFIX, ctx.random);
  return { token, tokenHash: hashToken(token) };
}

/**
 * The page under `publicUrl` with the token in the fragment: a browser never sends a fragment to a
 * server, so the token stays out of access logs, proxies and the Referer of whatever the page loads.
 */
export function linkTo(ctx: Context, page: LinkPage, token: string, name = "token"): string {
  return `${ctx.config.publicUrl.replace(/\/+$/, "")}/${page}#${name}=${token}`;
}

/** The sign-in page, for messages that point there without a token. */
export function signInLink(ctx: Context): string {
  return `${ctx.config.publicUrl.replace(/\/+$/, "")}/login`;
}

/** Edge check of a token from a link: its hash is what the store is asked for. */
export function requireLinkTokenHash(field: string, value: string): string {
  if (value === "") throw invalidArgument(field, "is required");
  if (value.length > MAX_TOKEN_LENGTH || !/^[\w-]+$/.test(value)) throw invalidArgument(field, "is not a valid link token");
  return hashToken(value);
}

/**
 * Sends one message; a failed delivery is `email_unavailable` (the sender's own error stays with the sender's log).
 * `charge`: the send's limit units, given back when the sender says the message went nowhere.
 */
export async function sendEmail(ctx: Context, message: EmailMessage, charge?: EmailCharge): Promise<void> {
  try {
    await ctx.email.send(message);
  } catch (error) {
    await refundUnsent(ctx, error, charge);
    throw new GatehouseError("email_unavailable");
  }
}

/**
 * Sends without waiting for delivery, for answers that must not take longer when an account exists
 * (RequestPasswordReset). A failure is the sender's to log; the caller's answer is the same either way.
 */
export function sendInBackground(ctx: Context, message: EmailMessage, charge?: EmailCharge): void {
  const failed = (error: unknown) => refundUnsent(ctx, error, charge).catch(() => undefined);
  try {
    ctx.email.send(message).catch(failed);
  } catch (error) {
    // A sender that throws instead of rejecting failed the same way.
    void failed(error);
  }
}

async function refundUnsent(ctx: Context, error: unknown, charge: EmailCharge | undefined): Promise<void> {
  if (charge !== undefined && definitelyNotSent(error)) await refundAll(ctx.stores.rateLimiter, charge.receipts);
}
