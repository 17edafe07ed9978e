import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { T0, USER_ID, OTHER_USER_ID, aUser, expectRejectionKind, seedGraph, times } from "./fixtures.ts";

/** The `UserStore` contract; `current` returns the fresh stores of the running test. */
export function describeUsersContract(current: () => Stores): void {
  describe("users", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    it("round-trips every field and finds by id and by email", async () => {
      const admin = aUser({ platformAdmin: true });
      const verified = aUser({ id: OTHER_USER_ID, email: "grace@example.com", phone: "+15550123", phoneVerified: true, createdAt: T0 + 1 });
      await stores.users.create(admin);
      await stores.users.create(verified);
      expect(await stores.users.findById(admin.id)).toEqual(admin);
      expect(await stores.users.findById(verified.id)).toEqual(verified);
      expect(await stores.users.findByEmail("grace@example.com")).toEqual(verified);
    });

    it("lists every user oldest first, ties by id", async () => {
      expect(await stores.users.list()).toEqual([]);
      const later = aUser({ id: OTHER_USER_ID, email: "grace@example.com", createdAt: T0 + 1 });
      await stores.users.create(later);
      await stores.users.create(aUser());
      expect(await stores.users.list()).toEqual([aUser(), later]);
    });

    it("returns null for unknown ids and emails", async () => {
      await stores.users.create(aUser());
      expect(await stores.users.findById("nobody")).toBeNull();
      expect(await stores.users.findByEmail("nobody@example.com")).toBeNull();
    });

    it("refuses a duplicate id or email with already_exists", async () => {
      await stores.users.create(aUser());
      await expectRejectionKind(stores.users.create(aUser({ email: "other@example.com" })), "already_exists");
      await expectRejectionKind(stores.users.create(aUser({ id: OTHER_USER_ID })), "already_exists");
      expect(await stores.users.findById(OTHER_USER_ID)).toBeNull();
    });

    it("sets a verified phone once, then keeps it locked", async () => {
      await stores.users.create(aUser());
      expect(await stores.users.setVerifiedPhone(USER_ID, "+15550100")).toBe(true);
      expect(await stores.users.findById(USER_ID)).toEqual(aUser({ phone: "+15550100", phoneVerified: true }));
      expect(await stores.users.setVerifiedPhone(USER_ID, "+15550199")).toBe(false);
      expect((await stores.users.findById(USER_ID))?.phone).toBe("+15550100");
    });

    it("does not set a phone on a missing user", async () => {
      expect(await stores.users.setVerifiedPhone("nobody", "+15550100")).toBe(false);
    });

    it("lets exactly one of 20 concurrent setVerifiedPhone calls win", async () => {
      await stores.users.create(aUser());
      const results = await times(20, (i) => stores.users.setVerifiedPhone(USER_ID, `+1555020${String(i).padStart(2, "0")}`));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await stores.users.findById(USER_ID))?.phone).toBe(`+1555020${String(winner).padStart(2, "0")}`);
    });

    it("replaces a password hash only while it is still the expected one", async () => {
      await stores.users.create(aUser());
      await stores.users.create(aUser({ id: OTHER_USER_ID, email: "grace@example.com" }));
      const original = aUser().passwordHash;
      expect(await stores.users.replacePasswordHash(USER_ID, original, "$argon2id$new")).toBe(true);
      expect(await stores.users.findById(USER_ID)).toEqual(aUser({ passwordHash: "$argon2id$new" }));
      expect(await stores.users.replacePasswordHash(USER_ID, original, "$argon2id$stale")).toBe(false);
      expect((await stores.users.findById(USER_ID))?.passwordHash).toBe("$argon2id$new");
      expect((await stores.users.findById(OTHER_USER_ID))?.passwordHash).toBe(original);
    });

    it("does not replace the password hash of a missing user", async () => {
      expect(await stores.users.replacePasswordHash("nobody", aUser().passwordHash, "$argon2id$new")).toBe(false);
    });

    it("lets exactly one of 20 concurrent password hash replacements from one read win", async () => {
      await stores.users.create(aUser());
      const original = aUser().passwordHash;
      const results = await times(20, (i) => stores.users.replacePasswordHash(USER_ID, original, `$argon2id$new-${i}`));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await stores.users.findById(USER_ID))?.passwordHash).toBe(`$argon2id$new-${results.indexOf(true)}`);
    });

    it("unlocks a user's phone once (a factor reset), leaving other users' alone", async () => {
      await seedGraph(stores);
      await stores.users.setVerifiedPhone(USER_ID, "+15550100");
      await stores.users.setVerifiedPhone(OTHER_USER_ID, "+15550199");
      expect(await stores.users.clearPhone(USER_ID)).toBe(true);
      expect(await stores.users.clearPhone(USER_ID)).toBe(false);
      expect(await stores.users.clearPhone("missing")).toBe(false);
      expect(await stores.users.findById(USER_ID)).toMatchObject({ phone: null, phoneVerified: false });
      expect(await stores.users.findById(OTHER_USER_ID)).toMatchObject({ phone: "+15550199", phoneVerified: true });
      expect(await stores.users.setVerifiedPhone(USER_ID, "+15550111")).toBe(true);
    });
  });
}
