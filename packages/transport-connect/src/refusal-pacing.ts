import type { Interceptor } from "@connectrpc/connect";
import { GatehouseError } from "@gatehouse/core";
import { setTimeout as sleep } from "node:timers/promises";
import { IP_LIMITED_METHODS, methodName } from "./interceptors.ts";

/** Enough to slow any flood one server can parse (tens of thousands of requests a second) to a trickle. */
export const DEFAULT_MAX_PAUSED = 10_000;

/** Waits `ms`, or less when `signal` aborts (the client left): never throws. */
export type Pause = (ms: number, signal: AbortSignal) => Promise<void>;

export const pauseUnlessAborted: Pause = (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined);

/**
 * Answers a refused public auth RPC (ResourceExhausted from the per-IP limit, the password hash queue or a
 * core limit) only after min(its retry-after, `maxPauseMs`). A client that retries the instant it is refused
 * otherwise turns each refusal into another request: in the bench, 64 connections flooding Login were
 * answered about 1,800 refusals a second, CPU the two cores' password hashes then lacked, which is what made a
 * legitimate login slow. Paced, each such connection costs at most one request per pause. A client that
 * honours `retry-after` waits longer than the pause anyway. 0 turns pacing off.
 *
 * At most `maxPaused` refusals wait at once; past that they are answered at once. A paused request is held
 * in memory, and many connections times many HTTP/2 streams must not become gigabytes of held requests.
 */
export function refusalPacingInterceptor(maxPauseMs: number, pause: Pause = pauseUnlessAborted, maxPaused = DEFAULT_MAX_PAUSED): Interceptor {
  let paused = 0;
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      const retryAfterSeconds = error instanceof GatehouseError && error.kind === "rate_limited" ? error.details.retryAfterSeconds : undefined;
      const paces = maxPauseMs > 0 && retryAfterSeconds !== undefined && IP_LIMITED_METHODS.has(methodName(req));
      if (paces && paused < maxPaused) {
        paused++;
        try {
          await pause(Math.min(maxPauseMs, retryAfterSeconds * 1000), req.signal);
        } finally {
          paused--;
        }
      }
      throw error;
    }
  };
}
