import type { RateLimitName } from "../audit/events.ts";
import type { WindowLimit } from "../config.ts";
import { rateLimited, type GatehouseError } from "../errors.ts";
import type { EpochMs } from "../model.ts";
import type { RateLimiter, RateLimitReceipt } from "../ports.ts";
import { hashToken } from "../tokens.ts";

export type ConsumedUnits =
  | { readonly allowed: true; readonly receipts: RateLimitReceipt[] }
  /** `limit` refused; `refusal` is the `rate_limited` answer, naming when it lifts. */
  | { readonly allowed: false; readonly limit: RateLimitName; readonly refusal: GatehouseError };

/** One named limit of `consumeAll`: its key's sliding log in each of its windows. */
export interface NamedLimit {
  readonly name: RateLimitName;
  readonly key: string;
  readonly windows: readonly WindowLimit[];
}

/**
 * Takes one unit from every window of every key, or none: when a window refuses, the units this
 * call took are given back and the outcome names the limit and the time it lifts. Returns the
 * receipts, so a caller whose action then fails can refund them (`refundAll`). Every window is
 * asked in one `consumeMany` call; when several refuse, the outcome names the one
 * that lifts last, as retrying any earlier would be refused again.
 */
export async function consumeAll(limiter: RateLimiter, limits: readonly NamedLimit[], now: EpochMs): Promise<ConsumedUnits> {
  const windows = limits.flatMap(({ name, key, windows }) =>
    windows.map(({ limit, windowMs }) => ({ name, request: { key: `${key}:${windowMs}`, limit, windowMs } })),
  );
  const decisions = await limiter.consumeMany(
    windows.map(({ request }) => request),
    now,
  );
  const receipts = decisions.flatMap((decision) => (decision.allowed ? [decision.receipt] : []));
  let refused: { readonly name: RateLimitName; readonly retryAt: EpochMs } | undefined;
  for (const [i, decision] of decisions.entries()) {
    if (decision.allowed || (refused !== undefined && decision.retryAt <= refused.retryAt)) continue;
    refused = { name: windows[i]!.name, retryAt: decision.retryAt };
  }
  if (refused === undefined) return { allowed: true, receipts };
  await refundAll(limiter, receipts);
  return { allowed: false, limit: refused.name, refusal: rateLimited((refused.retryAt - now) / 1000) };
}

export async function refundAll(limiter: RateLimiter, receipts: readonly RateLimitReceipt[]): Promise<void> {
  for (const receipt of receipts) await limiter.refund(receipt);
}

export const rateLimitKeys = {
  /** `phone` is E.164, so every spelling of one number shares its limits. */
  otpSendsPerPhone: (phone: string) => `otp-send:phone:${phone}`,
  otpSendsPerUser: (userId: string) => `otp-send:user:${userId}`,
  otpSendsPerStepUpSession: (sessionId: string) => `otp-send:step-up-session:${sessionId}`,
  otpSendsPerPrefix: (prefix: string) => `otp-send:prefix:${prefix}`,
  otpFailuresPerUser: (userId: string) => `otp-fail:user:${userId}`,
  /** A step-up's wrong codes: the same limit as the user's, counted for the session stepping up. */
  otpFailuresPerStepUpSession: (sessionId: string) => `otp-fail:step-up-session:${sessionId}`,
  browserPolicyWritesPerOrg: (orgId: string) => `policy-write:org:${orgId}`,
  browserPolicyWritesPerUser: (userId: string) => `policy-write:user:${userId}`,
  /** Keyed by the normalised email, so an unknown email is throttled exactly as a registered one (no enumeration). */
  passwordFailuresPerAccount: (email: string) => `password-fail:account:${email}`,
  /** A device that had a session for the user: its fingerprint is hashed to keep the key short. */
  passwordFailuresPerKnownDevice: (userId: string, fingerprint: string) => `password-fail:device:${userId}:${hashToken(fingerprint)}`,
  anonymousAuditPerIp: (clientIp: string) => `audit-anon:ip:${clientIp}`,
  passkeySignInsPerClient: (clientIp: string) => `passkey-sign-in:ip:${clientIp}`,
};
