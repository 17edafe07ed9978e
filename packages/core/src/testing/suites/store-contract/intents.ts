import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { T0, MINUTE, USER_ID, OTHER_USER_ID, OTHER_USER_DEVICE_ID, OTHER_ORG_DEVICE_ID, anIntent, expectRejectionKind, times, seedGraph } from "./fixtures.ts";

/** The `IntentStore` contract; `current` returns the fresh stores of the running test. */
export function describeIntentsContract(current: () => Stores): void {
  describe("intents", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    beforeEach(async () => {
      await seedGraph(stores);
    });

    it("consumes an unexpired intent once, returning every field", async () => {
      await stores.intents.create(anIntent());
      expect(await stores.intents.consume("intent-1", T0 + MINUTE)).toEqual(anIntent());
      expect(await stores.intents.consume("intent-1", T0 + MINUTE)).toBeNull();
      expect(await stores.intents.consume("no-intent", T0)).toBeNull();
    });

    it("refuses a duplicate id with already_exists", async () => {
      await stores.intents.create(anIntent());
      await expectRejectionKind(stores.intents.create(anIntent({ deviceId: OTHER_ORG_DEVICE_ID })), "already_exists");
    });

    it("returns null for an expired intent and deletes it", async () => {
      await stores.intents.create(anIntent());
      expect(await stores.intents.consume("intent-1", anIntent().expiresAt)).toBeNull();
      expect(await stores.intents.consume("intent-1", T0)).toBeNull();
    });

    it("deletes every intent of one user and counts them", async () => {
      await stores.intents.create(anIntent());
      await stores.intents.create(anIntent({ id: "intent-2" }));
      await stores.intents.create(anIntent({ id: "intent-3", userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
      expect(await stores.intents.deleteByUser(USER_ID)).toBe(2);
      expect(await stores.intents.deleteByUser(USER_ID)).toBe(0);
      expect(await stores.intents.consume("intent-1", T0)).toBeNull();
      expect(await stores.intents.consume("intent-3", T0)).not.toBeNull();
    });

    it("lets exactly one of 50 concurrent consumes have the intent", async () => {
      await stores.intents.create(anIntent());
      const results = await times(50, () => stores.intents.consume("intent-1", T0));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });
  });
}
