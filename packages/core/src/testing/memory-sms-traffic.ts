import type { EpochMs } from "../model.ts";
import type { SmsTrafficStore, SmsTrafficTotals } from "../ports.ts";
import type { MemoryTables } from "./memory-transactions.ts";

/** Counts per key and bucket, and each key's breaker; every method's body runs without an await, so each is atomic. */
export function createMemorySmsTraffic(tables: MemoryTables): SmsTrafficStore {
  const buckets = tables.map<string, ReadonlyMap<EpochMs, { readonly sent: number; readonly verified: number }>>();
  const breakers = tables.map<string, EpochMs>();
  const totals = (key: string, from: EpochMs, to: EpochMs): SmsTrafficTotals => {
    let sent = 0;
    let verified = 0;
    for (const [start, counts] of buckets.get(key) ?? []) {
      if (start < from || start >= to) continue;
      sent += counts.sent;
      verified += counts.verified;
    }
    return { key, sent, verified };
  };
  return {
    async add(keys, bucketStart, sent, verified) {
      for (const key of keys) {
        const counts = new Map(buckets.get(key));
        const current = counts.get(bucketStart) ?? { sent: 0, verified: 0 };
        counts.set(bucketStart, { sent: current.sent + sent, verified: current.verified + verified });
        buckets.set(key, counts);
      }
    },
    async read(keys, from, now) {
      return keys.map((key) => {
        const openUntil = breakers.get(key);
        return { ...totals(key, from, Number.POSITIVE_INFINITY), openUntil: openUntil !== undefined && openUntil > now ? openUntil : null };
      });
    },
    async trip(key, until, now) {
      const openUntil = breakers.get(key);
      if (openUntil !== undefined && openUntil > now) return false;
      breakers.set(key, until);
      return true;
    },
    async report(from, to) {
      return [...buckets.keys()]
        .filter((key) => [...(buckets.get(key)?.keys() ?? [])].some((start) => start >= from && start < to))
        .sort()
        .map((key) => totals(key, from, to));
    },
  };
}
