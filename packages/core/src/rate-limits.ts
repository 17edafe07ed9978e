import type { RateLimitName } from "./audit/events.ts";
import type { WindowLimit } from "./config.ts";
import { rateLimited, type GatehouseError } from "./errors.ts";
import type { EpochMs } from "./model.ts";
import type { RateLimiter, RateLimitReceipt } from "./ports.ts";

export type ConsumedUnits =
  | { readonly allowed: true; readonly receipts: RateLimitReceipt[] }
  /** `limit` refused; `refusal` is the `rate_limited` answer, naming when it lifts. */
  | { readonly allowed: false; readonly limit: RateLimitName; readonly refusal: GatehouseError };

/**
 * Takes one unit from every window of every key, or none: when a window refuses, the units this
 * call already took are given back and the outcome names the limit and the time it lifts. Returns
 * the receipts, so a caller whose action then fails can refund them (`refundAll`).
 */
export async function consumeAll(
  limiter: RateLimiter,
  limits: readonly { readonly name: RateLimitName; readonly key: string; readonly windows: readonly WindowLimit[] }[],
  now: EpochMs,
): Promise<ConsumedUnits> {
  const receipts: RateLimitReceipt[] = [];
  for (const { name, key, windows } of limits) {
    for (const window of windows) {
      const decision = await limiter.consume(`${key}:${window.windowMs}`, window.limit, window.windowMs, now);
      if (!decision.allowed) {
        await refundAll(limiter, receipts);
        return { allowed: false, limit: name, refusal: rateLimited((decision.retryAt - now) / 1000) };
      }
      receipts.push(decision.receipt);
    }
  }
  return { allowed: true, receipts };
}

export async function refundAll(limiter: RateLimiter, receipts: readonly RateLimitReceipt[]): Promise<void> {
  for (const receipt of receipts) await limiter.refund(receipt);
}

export const rateLimitKeys = {
  /** `phone` is E.164, so every spelling of one number shares its limits. */
  otpSendsPerPhone: (phone: string) => `otp-send:phone:${phone}`,
  otpSendsPerUser: (userId: string) => `otp-send:user:${userId}`,
  otpFailuresPerUser: (userId: string) => `otp-fail:user:${userId}`,
};
