import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { aTotpFactor, expectRejectionKind, MINUTE, OTHER_USER_ID, seedGraph, T0, times, USER_ID } from "./fixtures.ts";

/** `TotpStore`: authenticator apps, one use per time step. */
export function describeTotpContract(current: () => Stores): void {
  describe("totp", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    it("round-trips an authenticator app, lists the user's oldest first, and refuses a duplicate id", async () => {
      await stores.totp.create(aTotpFactor());
      await stores.totp.create(aTotpFactor({ id: "totp-0", createdAt: T0 + MINUTE }));
      await stores.totp.create(aTotpFactor({ id: "totp-other", userId: OTHER_USER_ID }));
      await expectRejectionKind(stores.totp.create(aTotpFactor()), "already_exists");
      expect(await stores.totp.find("totp-1")).toEqual(aTotpFactor());
      expect(await stores.totp.find("missing")).toBeNull();
      expect((await stores.totp.list(USER_ID)).map((factor) => factor.id)).toEqual(["totp-1", "totp-0"]);
    });

    it("confirms an enrolment once", async () => {
      await stores.totp.create(aTotpFactor());
      expect(await stores.totp.confirm("totp-1", T0 + MINUTE)).toBe(true);
      expect(await stores.totp.confirm("totp-1", T0 + 2 * MINUTE)).toBe(false);
      expect(await stores.totp.confirm("missing", T0)).toBe(false);
      expect((await stores.totp.find("totp-1"))?.confirmedAt).toBe(T0 + MINUTE);
    });

    it("accepts each time step once and never an earlier one", async () => {
      await stores.totp.create(aTotpFactor());
      expect(await stores.totp.acceptStep("totp-1", 100, T0)).toBe(true);
      expect(await stores.totp.acceptStep("totp-1", 100, T0 + 1)).toBe(false);
      expect(await stores.totp.acceptStep("totp-1", 99, T0 + 2)).toBe(false);
      expect(await stores.totp.acceptStep("totp-1", 101, T0 + 3)).toBe(true);
      expect(await stores.totp.acceptStep("missing", 1, T0)).toBe(false);
      expect(await stores.totp.find("totp-1")).toMatchObject({ lastStep: 101, lastUsedAt: T0 + 3 });
    });

    it("lets exactly one of concurrent uses of one time step through", async () => {
      await stores.totp.create(aTotpFactor({ lastStep: 50 }));
      const accepted = await times(8, () => stores.totp.acceptStep("totp-1", 51, T0));
      expect(accepted.filter(Boolean)).toHaveLength(1);
      expect((await stores.totp.find("totp-1"))?.lastStep).toBe(51);
    });

    it("deletes an authenticator app only for its own user", async () => {
      await stores.totp.create(aTotpFactor());
      expect(await stores.totp.delete(OTHER_USER_ID, "totp-1")).toBe(false);
      expect(await stores.totp.delete(USER_ID, "totp-1")).toBe(true);
      expect(await stores.totp.find("totp-1")).toBeNull();
    });

    it("deletes every authenticator app of one user", async () => {
      await stores.totp.create(aTotpFactor());
      await stores.totp.create(aTotpFactor({ id: "totp-other", userId: OTHER_USER_ID }));
      expect(await stores.totp.deleteByUser(USER_ID)).toBe(1);
      expect(await stores.totp.list(USER_ID)).toEqual([]);
      expect(await stores.totp.find("totp-other")).not.toBeNull();
    });
  });
}
