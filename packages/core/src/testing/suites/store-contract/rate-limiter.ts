import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { T0, MINUTE, times } from "./fixtures.ts";

/** The `RateLimiter` contract; `current` returns the fresh stores of the running test. */
export function describeRateLimiterContract(current: () => Stores): void {
  describe("rate limiter (sliding log)", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    const windowMs = MINUTE;
    const limit = 5;
    const consume = (key: string, at: number, max = limit) => stores.rateLimiter.consume(key, max, windowMs, at);
    const allowed = async (key: string, at: number, max = limit) => (await consume(key, at, max)).allowed;

    it("allows until the limit, then refuses without counting further, naming when the oldest unit leaves", async () => {
      const decisions = [];
      for (let i = 0; i < 7; i++) decisions.push(await stores.rateLimiter.consume("k", 3, windowMs, T0 + 123 + i));
      expect(decisions.map((decision) => [decision.allowed, decision.count])).toEqual([
        [true, 1],
        [true, 2],
        [true, 3],
        [false, 3],
        [false, 3],
        [false, 3],
        [false, 3],
      ]);
      expect(decisions.slice(3)).toEqual(Array(4).fill({ allowed: false, count: 3, retryAt: T0 + 123 + windowMs }));
    });

    it("holds for any window of that length: 5 at t=0…4 s, none until the first leaves, one per unit that leaves", async () => {
      for (let i = 0; i < limit; i++) expect(await allowed("k", T0 + i * 1000)).toBe(true);
      expect(await allowed("k", T0 + 30_000)).toBe(false);
      expect(await allowed("k", T0 + windowMs - 1)).toBe(false);
      expect(await allowed("k", T0 + windowMs)).toBe(true);
      expect(await allowed("k", T0 + windowMs + 1)).toBe(false);
      expect(await consume("k", T0 + windowMs + 999)).toEqual({ allowed: false, count: 5, retryAt: T0 + windowMs + 1000 });
      expect(await allowed("k", T0 + windowMs + 1000)).toBe(true);
    });

    it("a unit taken at 59.9 s blocks until 119.9 s, where a fixed window would have reset at 60 s", async () => {
      for (let i = 0; i < limit; i++) expect(await allowed("k", T0 + 59_900)).toBe(true);
      expect(await consume("k", T0 + 60_000)).toEqual({ allowed: false, count: 5, retryAt: T0 + 119_900 });
      expect(await allowed("k", T0 + 119_899)).toBe(false);
      expect(await allowed("k", T0 + 119_900)).toBe(true);
    });

    it("never lets any interval of windowMs hold more than the limit under a steady stream of attempts", async () => {
      const accepted: number[] = [];
      for (let at = T0; at < T0 + 5 * windowMs; at += 1_700) if (await allowed("k", at)) accepted.push(at);
      for (const start of accepted) expect(accepted.filter((at) => at >= start && at < start + windowMs).length).toBeLessThanOrEqual(limit);
      expect(accepted.length).toBeGreaterThanOrEqual(5 * limit);
    });

    it("keeps keys apart", async () => {
      await consume("a", T0, 1);
      expect(await allowed("b", T0, 1)).toBe(true);
    });

    it("gives back exactly the refunded unit, once, and nothing for a receipt of another key or unit", async () => {
      const first = await consume("k", T0, 2);
      const second = await consume("k", T0, 2);
      if (!first.allowed || !second.allowed) throw new Error("expected two units");
      expect(first.receipt).not.toEqual(second.receipt);
      await stores.rateLimiter.refund(first.receipt);
      await stores.rateLimiter.refund(first.receipt);
      await stores.rateLimiter.refund({ ...second.receipt, key: "other" });
      await stores.rateLimiter.refund({ ...second.receipt, unit: second.receipt.unit + 100 });
      // Only the second unit is held: one more fits, then the key is full again.
      expect(await consume("k", T0, 2)).toMatchObject({ allowed: true, count: 2 });
      expect(await consume("k", T0, 2)).toMatchObject({ allowed: false, count: 2 });
    });

    it("a refund after the unit left the window changes nothing", async () => {
      const old = await consume("k", T0, 1);
      if (!old.allowed) throw new Error("expected a unit");
      expect(await allowed("k", T0 + windowMs, 1)).toBe(true);
      await stores.rateLimiter.refund(old.receipt);
      expect(await allowed("k", T0 + windowMs + 1, 1)).toBe(false);
    });

    it("the retry time follows the oldest unit still held once an older one is refunded", async () => {
      const decisions = [];
      for (let i = 0; i < limit; i++) decisions.push(await consume("k", T0 + i * 1000));
      const oldest = decisions[0]!;
      if (!oldest.allowed) throw new Error("expected a unit");
      await stores.rateLimiter.refund(oldest.receipt);
      expect(await allowed("k", T0 + 10_000)).toBe(true);
      expect(await consume("k", T0 + 10_001)).toEqual({ allowed: false, count: 5, retryAt: T0 + 1000 + windowMs });
    });

    it("allows exactly the limit among 50 concurrent consumes", async () => {
      const decisions = await times(50, () => stores.rateLimiter.consume("k", 10, windowMs, T0));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
      expect(Math.max(...decisions.map((decision) => decision.count))).toBe(10);
      expect(await stores.rateLimiter.consume("k", 10, windowMs, T0)).toEqual({ allowed: false, count: 10, retryAt: T0 + windowMs });
    });

    it("concurrent refunds of one receipt give back one unit; refunds racing consumes never exceed the limit", async () => {
      const taken = await times(5, () => consume("k", T0));
      const receipts = taken.flatMap((decision) => (decision.allowed ? [decision.receipt] : []));
      expect(receipts).toHaveLength(5);
      await times(10, () => stores.rateLimiter.refund(receipts[0]!));
      // Four units held: one fits, then the key is full; that one is given back for the race below.
      const refilled = await consume("k", T0);
      expect(refilled).toMatchObject({ allowed: true, count: limit });
      expect(await consume("k", T0)).toMatchObject({ allowed: false, count: limit });
      if (refilled.allowed) await stores.rateLimiter.refund(refilled.receipt);
      const raced = await Promise.all([
        ...receipts.slice(1).map((receipt) => stores.rateLimiter.refund(receipt)),
        ...Array.from({ length: 20 }, () => consume("k", T0 + 1)),
      ]);
      const accepted = raced.filter((result) => typeof result === "object" && result.allowed).length;
      expect(accepted).toBeGreaterThanOrEqual(1);
      expect(accepted).toBeLessThanOrEqual(5);
      let after = await consume("k", T0 + 2);
      for (let i = 0; i < limit && after.allowed; i++) after = await consume("k", T0 + 2);
      expect(after).toMatchObject({ allowed: false, count: limit });
    });

    it("refuses a limit below 1", async () => {
      await expect(stores.rateLimiter.consume("k", 0, windowMs, T0)).rejects.toThrow(RangeError);
    });

    describe("consumeMany", () => {
      const consumeMany = (at: number, ...requests: [key: string, limit: number, windowMs?: number][]) =>
        stores.rateLimiter.consumeMany(
          requests.map(([key, limit, length = windowMs]) => ({ key, limit, windowMs: length })),
          at,
        );

      it("takes one unit from each key that has room, the decisions in the order of the requests", async () => {
        await consume("m", T0);
        const decisions = await consumeMany(T0 + 1, ["z", 5], ["m", 5], ["a", 1]);
        expect(decisions).toEqual([
          { allowed: true, count: 1, receipt: { key: "z", at: T0 + 1, unit: 1 } },
          { allowed: true, count: 2, receipt: { key: "m", at: T0 + 1, unit: 2 } },
          { allowed: true, count: 1, receipt: { key: "a", at: T0 + 1, unit: 1 } },
        ]);
        expect(await consume("m", T0 + 2)).toMatchObject({ allowed: true, count: 3 });
        expect(await consume("a", T0 + 2, 1)).toEqual({ allowed: false, count: 1, retryAt: T0 + 1 + windowMs });
        expect(await consumeMany(T0 + 3)).toEqual([]);
      });

      it("a refused key answers with its retry time and takes nothing; the others take theirs, refundable one by one", async () => {
        await consume("full", T0, 1);
        const [free, full] = await consumeMany(T0 + 1000, ["free", 5], ["full", 1]);
        expect(full).toEqual({ allowed: false, count: 1, retryAt: T0 + windowMs });
        if (!free?.allowed) throw new Error("expected a unit of the free key");
        expect(await consume("full", T0 + windowMs, 1)).toMatchObject({ allowed: true, count: 1 });
        await stores.rateLimiter.refund(free.receipt);
        expect(await consume("free", T0 + 1001)).toMatchObject({ allowed: true, count: 1 });
      });

      it("keeps windows of different limits and lengths apart within one call", async () => {
        const short = ["k:short", 2, MINUTE] as const;
        const long = ["k:long", 3, 10 * MINUTE] as const;
        const allowedAt = async (at: number) => (await consumeMany(at, [...short], [...long])).map((decision) => decision.allowed);
        expect(await allowedAt(T0)).toEqual([true, true]);
        expect(await allowedAt(T0 + 1000)).toEqual([true, true]);
        expect(await allowedAt(T0 + 2000)).toEqual([false, true]);
        expect(await consumeMany(T0 + 3000, [...short], [...long])).toEqual([
          { allowed: false, count: 2, retryAt: T0 + MINUTE },
          { allowed: false, count: 3, retryAt: T0 + 10 * MINUTE },
        ]);
        expect(await allowedAt(T0 + MINUTE)).toEqual([true, false]);
        expect(await allowedAt(T0 + 10 * MINUTE)).toEqual([true, true]);
      });

      it("never exceeds any key's limit among 20 concurrent calls over the same keys, given in different orders", async () => {
        const keys: [key: string, limit: number][] = [
          ["a", 5],
          ["b", 10],
          ["c", 15],
        ];
        const orders = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? keys : keys.toReversed()));
        const calls = await Promise.all(orders.map((order) => consumeMany(T0, ...order)));
        const decided = orders.flatMap((order, i) => order.map(([key], j) => ({ key, decision: calls[i]![j]! })));
        for (const [key, max] of keys) {
          const decisions = decided.filter((entry) => entry.key === key).map((entry) => entry.decision);
          expect(decisions.filter((decision) => decision.allowed)).toHaveLength(max);
          expect(Math.max(...decisions.map((decision) => decision.count))).toBe(max);
          expect(await consume(key, T0, max)).toEqual({ allowed: false, count: max, retryAt: T0 + windowMs });
        }
      });

      it("refuses a key given twice or a limit below 1 (RangeError), taking nothing", async () => {
        await expect(consumeMany(T0, ["k", 5], ["other", 5], ["k", 5])).rejects.toThrow(RangeError);
        await expect(consumeMany(T0, ["k", 5], ["other", 0])).rejects.toThrow(RangeError);
        expect(await consumeMany(T0, ["k", 5], ["other", 5])).toMatchObject([{ count: 1 }, { count: 1 }]);
      });
    });
  });
}
