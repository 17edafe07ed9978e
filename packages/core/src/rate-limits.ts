import type { WindowLimit } from "./config.ts";
import { rateLimited } from "./errors.ts";
import type { EpochMs } from "./model.ts";
import type { RateLimiter, RateLimitReceipt } from "./ports.ts";

/**
 * Takes one unit from every window of every key, or none: when a window refuses, the units this
 * call already took are given back and the refusal names the time it lifts. Returns the receipts,
 * so a caller whose action then fails can refund them (`refundAll`).
 */
export async function consumeAll(
  limiter: RateLimiter,
  limits: readonly { readonly key: string; readonly windows: readonly WindowLimit[] }[],
  now: EpochMs,
): Promise<RateLimitReceipt[]> {
  const receipts: RateLimitReceipt[] = [];
  for (const { key, windows } of limits) {
    for (const window of windows) {
      const decision = await limiter.consume(`${key}:${window.windowMs}`, window.limit, window.windowMs, now);
      if (!decision.allowed) {
        await refundAll(limiter, receipts);
        throw rateLimited((decision.retryAt - now) / 1000);
      }
      receipts.push(decision.receipt);
    }
  }
  return receipts;
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
