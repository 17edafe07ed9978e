import type { EpochMs } from "../model.ts";
import type { RateLimitRequest } from "../ports.ts";

/** One unit of a sliding-log rate limit: when it was taken and its number among the key's units. */
export interface LoggedUnit {
  readonly at: EpochMs;
  readonly unit: number;
}

/**
 * When a refused consume can next succeed: the log holds `units.length ≥ limit` units in the
 * window, and enough of the oldest must leave it (a unit taken at `t` leaves at `t + windowMs`)
 * for fewer than `limit` to remain. Shared by every RateLimiter implementation.
 */
export function slidingLogRetryAt(units: readonly LoggedUnit[], limit: number, windowMs: number): EpochMs {
  const oldestFirst = units.map((logged) => logged.at).sort((a, b) => a - b);
  return oldestFirst[Math.max(0, oldestFirst.length - limit)]! + windowMs;
}

/**
 * The RangeError every RateLimiter throws, before taking anything, for requests its `consumeMany` refuses
 * to run: a limit that is not a whole number ≥ 1, or a key given twice.
 */
export function checkRateLimitRequests(requests: readonly RateLimitRequest[]): void {
  const keys = new Set<string>();
  for (const { key, limit } of requests) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("a rate limit must be a whole number ≥ 1");
    // The key is not quoted: it holds a phone number or a user id, which no error message carries.
    if (keys.has(key)) throw new RangeError("a rate limit key appears twice in one consumeMany call");
    keys.add(key);
  }
}
