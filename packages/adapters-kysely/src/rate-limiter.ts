import type { EpochMs, RateLimiter } from "@gatehouse/core";
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

function windowOf(windowMs: number, now: EpochMs): { windowStart: EpochMs; resetAt: EpochMs } {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  return { windowStart, resetAt: windowStart + windowMs };
}

export function createRateLimiter(db: Kysely<Database>): RateLimiter {
  return {
    async consume(key, limit, windowMs, now) {
      const { windowStart, resetAt } = windowOf(windowMs, now);
      if (limit >= 1) {
        // One upsert that increments only below the limit: no row back means the window is full.
        const taken = await db
          .insertInto("rate_limit_counters")
          .values({ key, window_start: windowStart, count: 1, expires_at: resetAt })
          .onConflict((conflict) =>
            conflict
              .columns(["key", "window_start"])
              .doUpdateSet((eb) => ({ count: eb("rate_limit_counters.count", "+", 1) }))
              .where("rate_limit_counters.count", "<", limit),
          )
          .returning("count")
          .executeTakeFirst();
        if (taken !== undefined) return { allowed: true, count: taken.count, resetAt };
      }
      const current = await db
        .selectFrom("rate_limit_counters")
        .select("count")
        .where("key", "=", key)
        .where("window_start", "=", windowStart)
        .executeTakeFirst();
      return { allowed: false, count: current?.count ?? 0, resetAt };
    },

    async refund(key, windowMs, now) {
      const { windowStart } = windowOf(windowMs, now);
      await db
        .updateTable("rate_limit_counters")
        .set((eb) => ({ count: eb("count", "-", 1) }))
        .where("key", "=", key)
        .where("window_start", "=", windowStart)
        .where("count", ">", 0)
        .execute();
    },
  };
}
