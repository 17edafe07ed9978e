import type { MemoryTables } from "./memory-transactions.ts";
import { checkRateLimitRequests, slidingLogRetryAt, type LoggedUnit } from "../rate-limits/sliding-log.ts";
import type { EpochMs } from "../model.ts";
import type { RateLimitDecision, RateLimiter, RateLimitRequest } from "../ports.ts";

/** A sliding log per key, as in the SQL table: the units still in the window and the next unit number. */
export function createRateLimiter(tables: MemoryTables): RateLimiter {
  const logs = tables.map<string, { units: LoggedUnit[]; nextUnit: number }>();
  const consumeOne = ({ key, limit, windowMs }: RateLimitRequest, now: EpochMs): RateLimitDecision => {
    const log = logs.get(key) ?? { units: [], nextUnit: 1 };
    const units = log.units.filter((logged) => logged.at > now - windowMs);
    if (units.length >= limit) {
      logs.set(key, { ...log, units });
      return { allowed: false, count: units.length, retryAt: slidingLogRetryAt(units, limit, windowMs) };
    }
    const taken = { at: now, unit: log.nextUnit };
    logs.set(key, { units: [...units, taken], nextUnit: log.nextUnit + 1 });
    return { allowed: true, count: units.length + 1, receipt: { key, ...taken } };
  };
  return {
    async consume(key, limit, windowMs, now) {
      checkRateLimitRequests([{ key, limit, windowMs }]);
      return consumeOne({ key, limit, windowMs }, now);
    },
    async consumeMany(requests, now) {
      checkRateLimitRequests(requests);
      return requests.map((request) => consumeOne(request, now));
    },
    async refund(receipt) {
      const log = logs.get(receipt.key);
      if (log === undefined) return;
      logs.set(receipt.key, { ...log, units: log.units.filter((logged) => logged.at !== receipt.at || logged.unit !== receipt.unit) });
    },
  };
}
