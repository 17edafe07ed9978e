import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { MINUTE, T0, times } from "./fixtures.ts";
import type { StoreContractHandle } from "./handle.ts";

/** The `SmsTrafficStore` contract; `current` returns the handle of the running test. */
export function describeSmsTrafficContract(current: () => StoreContractHandle): void {
  describe("SMS traffic (conversion breaker counts)", () => {
    let handle: StoreContractHandle;
    let stores: Stores;

    beforeEach(() => {
      handle = current();
      stores = handle.stores;
    });

    const BUCKET = 5 * MINUTE;

    it("reads zeros and a closed breaker for keys never counted", async () => {
      expect(await stores.smsTraffic.read(["country:US", "prefix:+1202555"], T0, T0)).toEqual([
        { key: "country:US", sent: 0, verified: 0, openUntil: null },
        { key: "prefix:+1202555", sent: 0, verified: 0, openUntil: null },
      ]);
    });

    it("sums each key's buckets from `from` on, in the order of the keys asked, and takes back negative counts", async () => {
      await stores.smsTraffic.add(["country:US", "prefix:+1202555"], T0, 3, 1);
      await stores.smsTraffic.add(["country:US", "prefix:+1202555"], T0 + BUCKET, 2, 0);
      await stores.smsTraffic.add(["country:US"], T0 + 2 * BUCKET, 1, 2);
      await stores.smsTraffic.add(["prefix:+1202555"], T0 + BUCKET, -1, 0);
      expect(await stores.smsTraffic.read(["prefix:+1202555", "country:US"], T0, T0 + 2 * BUCKET)).toEqual([
        { key: "prefix:+1202555", sent: 4, verified: 1, openUntil: null },
        { key: "country:US", sent: 6, verified: 3, openUntil: null },
      ]);
      expect(await stores.smsTraffic.read(["country:US"], T0 + BUCKET, T0 + 2 * BUCKET)).toEqual([
        { key: "country:US", sent: 3, verified: 2, openUntil: null },
      ]);
    });

    it("counts every one of concurrent adds to one bucket", async () => {
      await times(20, () => stores.smsTraffic.add(["prefix:+4420794"], T0, 1, 0));
      expect((await stores.smsTraffic.read(["prefix:+4420794"], T0, T0))[0]?.sent).toBe(20);
    });

    it("opens a breaker once: of concurrent trips exactly one opens it, and it reads open until its time", async () => {
      const opened = await times(8, () => stores.smsTraffic.trip("prefix:+882123", T0 + 60 * MINUTE, T0));
      expect(opened.filter(Boolean)).toHaveLength(1);
      expect(await stores.smsTraffic.read(["prefix:+882123"], T0, T0 + 59 * MINUTE)).toEqual([
        { key: "prefix:+882123", sent: 0, verified: 0, openUntil: T0 + 60 * MINUTE },
      ]);
      expect(await stores.smsTraffic.trip("prefix:+882123", T0 + 90 * MINUTE, T0 + 59 * MINUTE)).toBe(false);
      expect((await stores.smsTraffic.read(["prefix:+882123"], T0, T0 + 60 * MINUTE))[0]?.openUntil).toBeNull();
      expect(await stores.smsTraffic.trip("prefix:+882123", T0 + 120 * MINUTE, T0 + 60 * MINUTE)).toBe(true);
      expect((await stores.smsTraffic.read(["prefix:+882123"], T0, T0 + 61 * MINUTE))[0]?.openUntil).toBe(T0 + 120 * MINUTE);
    });

    it("reports every key counted in buckets starting within [from, to), ordered by key", async () => {
      await stores.smsTraffic.add(["prefix:+1202555", "country:US"], T0, 4, 3);
      await stores.smsTraffic.add(["country:GB"], T0 + BUCKET, 2, 2);
      await stores.smsTraffic.add(["country:US"], T0 + 2 * BUCKET, 10, 0);
      expect(await stores.smsTraffic.report(T0, T0 + 2 * BUCKET)).toEqual([
        { key: "country:GB", sent: 2, verified: 2 },
        { key: "country:US", sent: 4, verified: 3 },
        { key: "prefix:+1202555", sent: 4, verified: 3 },
      ]);
      expect(await stores.smsTraffic.report(T0 + 2 * BUCKET, T0 + 3 * BUCKET)).toEqual([{ key: "country:US", sent: 10, verified: 0 }]);
    });

    it("rejects a failing add in the call that failed, inside a unit of work as outside it", async (context) => {
      const fail = handle.failSmsTraffic;
      // Skipped, with the reason printed, for an adapter that cannot fail its storage on demand: the memory stores.
      if (fail === undefined) return context.skip("this adapter cannot make its storage fail (memory stores keep no storage that could)");
      const restore = await fail();
      try {
        await expect(stores.smsTraffic.add(["country:US"], T0, 1, 0)).rejects.toThrow();
        const outcomes: string[] = [];
        const work = stores.transaction(async (tx) => {
          await tx.smsTraffic.add(["country:US"], T0, 1, 0).then(
            () => outcomes.push("resolved"),
            (error: unknown) => {
              outcomes.push("rejected");
              throw error;
            },
          );
        });
        await expect(work).rejects.toThrow();
        expect(outcomes).toEqual(["rejected"]);
      } finally {
        await restore();
      }
    });
  });
}
