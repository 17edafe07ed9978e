import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { OTHER_USER_ID, recoveryCodes, seedGraph, times, USER_ID } from "./fixtures.ts";

/** `RecoveryCodeStore`: a user's recovery codes, replaced as a set, one use each. */
export function describeRecoveryCodesContract(current: () => Stores): void {
  describe("recovery codes", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    it("replaces a user's recovery codes as a set, leaving other users' alone", async () => {
      await stores.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "old"));
      await stores.recoveryCodes.replace(OTHER_USER_ID, recoveryCodes(OTHER_USER_ID, "theirs", 2));
      await stores.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "new", 10));
      expect(await stores.recoveryCodes.count(USER_ID)).toBe(10);
      expect(await stores.recoveryCodes.count(OTHER_USER_ID)).toBe(2);
      expect(await stores.recoveryCodes.consume(USER_ID, recoveryCodes(USER_ID, "old")[0]!.codeHash)).toBeNull();
    });

    it("consumes a recovery code once, only for its user, and says how many are left", async () => {
      const [first] = recoveryCodes(USER_ID, "set");
      await stores.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "set"));
      expect(await stores.recoveryCodes.consume(OTHER_USER_ID, first!.codeHash)).toBeNull();
      expect(await stores.recoveryCodes.consume(USER_ID, first!.codeHash)).toBe(2);
      expect(await stores.recoveryCodes.consume(USER_ID, first!.codeHash)).toBeNull();
    });

    it("lets exactly one of concurrent uses of one recovery code through", async () => {
      const [first] = recoveryCodes(USER_ID, "race");
      await stores.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "race"));
      const used = await times(8, () => stores.recoveryCodes.consume(USER_ID, first!.codeHash));
      expect(used.filter((left) => left !== null)).toEqual([2]);
    });

    it("deletes every recovery code of one user", async () => {
      await stores.recoveryCodes.replace(USER_ID, recoveryCodes(USER_ID, "gone"));
      await stores.recoveryCodes.replace(OTHER_USER_ID, recoveryCodes(OTHER_USER_ID, "kept", 2));
      expect(await stores.recoveryCodes.deleteByUser(USER_ID)).toBe(3);
      expect(await stores.recoveryCodes.count(USER_ID)).toBe(0);
      expect(await stores.recoveryCodes.count(OTHER_USER_ID)).toBe(2);
    });
  });
}
