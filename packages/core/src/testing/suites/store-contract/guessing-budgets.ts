import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { DAY, MINUTE, OTHER_USER_ID, seedGraph, T0, times, USER_ID } from "./fixtures.ts";

/** The ports behind the guessing budgets and the email budgets: familiar networks and live links. */
export function describeGuessingBudgetsContract(current: () => Stores): void {
  describe("guessing budgets", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    describe("signInNetworks", () => {
      it("knows a network from its sign-in on, for its user only", async () => {
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", T0 - DAY)).toBe(false);
        await stores.signInNetworks.record(USER_ID, "net-a", T0, T0 - 30 * DAY);
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", T0)).toBe(true);
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", T0 + 1)).toBe(false);
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-b", T0 - DAY)).toBe(false);
        expect(await stores.signInNetworks.seenSince(OTHER_USER_ID, "net-a", T0 - DAY)).toBe(false);
      });

      it("keeps the latest sign-in time, whatever order they are recorded in, concurrently too", async () => {
        await stores.signInNetworks.record(USER_ID, "net-a", T0 + 5 * MINUTE, T0 - DAY);
        await stores.signInNetworks.record(USER_ID, "net-a", T0, T0 - DAY);
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", T0 + 5 * MINUTE)).toBe(true);
        await times(20, (i) => stores.signInNetworks.record(USER_ID, "net-a", T0 + (10 + i) * MINUTE, T0 - DAY));
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", T0 + 29 * MINUTE)).toBe(true);
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", T0 + 30 * MINUTE)).toBe(false);
      });

      it("forgets every network of a user, and no other user's", async () => {
        await stores.signInNetworks.record(USER_ID, "net-a", T0, T0 - DAY);
        await stores.signInNetworks.record(USER_ID, "net-b", T0, T0 - DAY);
        await stores.signInNetworks.record(OTHER_USER_ID, "net-a", T0, T0 - DAY);
        expect(await stores.signInNetworks.forgetUser(USER_ID)).toBe(2);
        expect(await stores.signInNetworks.seenSince(USER_ID, "net-a", 0)).toBe(false);
        expect(await stores.signInNetworks.seenSince(OTHER_USER_ID, "net-a", 0)).toBe(true);
        expect(await stores.signInNetworks.forgetUser(USER_ID)).toBe(0);
      });

      it("forgets the user's networks not seen since `forgetBefore` as it records, and no other user's", async () => {
        await stores.signInNetworks.record(USER_ID, "old", T0, T0 - DAY);
        await stores.signInNetworks.record(OTHER_USER_ID, "old", T0, T0 - DAY);
        await stores.signInNetworks.record(USER_ID, "new", T0 + 40 * DAY, T0 + 10 * DAY);
        expect(await stores.signInNetworks.seenSince(USER_ID, "old", 0)).toBe(false);
        expect(await stores.signInNetworks.seenSince(OTHER_USER_ID, "old", 0)).toBe(true);
        expect(await stores.signInNetworks.seenSince(USER_ID, "new", T0 + 40 * DAY)).toBe(true);
      });
    });

    describe("emailTokens.hasLive", () => {
      it("tells whether the user holds an unexpired token of the purpose", async () => {
        const token = { tokenHash: "c".repeat(64), purpose: "unblock_sign_in", userId: USER_ID, expiresAt: T0 + 30 * MINUTE, createdAt: T0 } as const;
        expect(await stores.emailTokens.hasLive(USER_ID, "unblock_sign_in", T0)).toBe(false);
        await stores.emailTokens.create(token);
        expect(await stores.emailTokens.hasLive(USER_ID, "unblock_sign_in", T0)).toBe(true);
        expect(await stores.emailTokens.hasLive(USER_ID, "reset_password", T0)).toBe(false);
        expect(await stores.emailTokens.hasLive(OTHER_USER_ID, "unblock_sign_in", T0)).toBe(false);
        expect(await stores.emailTokens.hasLive(USER_ID, "unblock_sign_in", T0 + 30 * MINUTE)).toBe(false);
        expect(await stores.emailTokens.consume(token.tokenHash, "unblock_sign_in", T0)).toEqual(token);
        expect(await stores.emailTokens.hasLive(USER_ID, "unblock_sign_in", T0)).toBe(false);
      });
    });
  });
}
