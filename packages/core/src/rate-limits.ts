import type { WindowLimit } from "./config.ts";
import { rateLimited } from "./errors.ts";
import type { RateLimiter } from "./ports.ts";

/** Takes one unit from every window of `key`; the first exhausted window refuses with its reset time. */
export async function consumeAll(limiter: RateLimiter, key: string, windows: readonly WindowLimit[], now: number): Promise<void> {
  for (const window of windows) {
    const decision = await limiter.consume(`${key}:${window.windowMs}`, window.limit, window.windowMs, now);
    if (!decision.allowed) throw rateLimited((decision.resetAt - now) / 1000);
  }
}

export const rateLimitKeys = {
  otpSendsPerPhone: (phone: string) => `otp-send:phone:${phone}`,
  otpSendsPerUser: (userId: string) => `otp-send:user:${userId}`,
  otpFailuresPerUser: (userId: string) => `otp-fail:user:${userId}`,
};
