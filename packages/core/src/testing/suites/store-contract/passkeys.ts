import { beforeEach, describe, expect, it } from "vitest";
import type { WebAuthnFactor } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import { expectRejectionKind, MINUTE, OTHER_USER_ID, seedGraph, T0, times, USER_ID } from "./fixtures.ts";

function aPasskey(overrides: Partial<WebAuthnFactor> = {}): WebAuthnFactor {
  return {
    id: "passkey-1",
    userId: USER_ID,
    label: "Laptop",
    credentialId: "Y3JlZGVudGlhbC0x",
    publicKey: "cHVibGljLWtleQ",
    counter: 0,
    transports: ["internal", "hybrid"],
    aaguid: "00000000-0000-0000-0000-000000000000",
    backedUp: false,
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

/** `PasskeyStore`: passkeys, unique by credential id, their signature counter moving forward only. */
export function describePasskeysContract(current: () => Stores): void {
  describe("passkeys", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    it("round-trips a passkey, finds it by credential id, and refuses a duplicate id or credential id", async () => {
      await stores.passkeys.create(aPasskey());
      await stores.passkeys.create(aPasskey({ id: "passkey-0", credentialId: "b3RoZXI", transports: [], createdAt: T0 + MINUTE }));
      await expectRejectionKind(stores.passkeys.create(aPasskey({ credentialId: "bmV3" })), "already_exists");
      await expectRejectionKind(stores.passkeys.create(aPasskey({ id: "passkey-theirs", userId: OTHER_USER_ID })), "already_exists");
      expect(await stores.passkeys.findByCredentialId("Y3JlZGVudGlhbC0x")).toEqual(aPasskey());
      expect(await stores.passkeys.findByCredentialId("missing")).toBeNull();
      expect((await stores.passkeys.list(USER_ID)).map((factor) => [factor.id, factor.transports])).toEqual([
        ["passkey-1", ["internal", "hybrid"]],
        ["passkey-0", []],
      ]);
      expect(await stores.passkeys.delete(OTHER_USER_ID, "passkey-1")).toBe(false);
      expect(await stores.passkeys.delete(USER_ID, "passkey-1")).toBe(true);
      expect(await stores.passkeys.findByCredentialId("Y3JlZGVudGlhbC0x")).toBeNull();
    });

    it("moves a passkey's counter forward only, and lets 0 follow 0", async () => {
      await stores.passkeys.create(aPasskey());
      expect(await stores.passkeys.acceptCounter("passkey-1", 0, false, T0 + 1)).toBe(true);
      expect(await stores.passkeys.acceptCounter("passkey-1", 7, true, T0 + 2)).toBe(true);
      expect(await stores.passkeys.acceptCounter("passkey-1", 7, true, T0 + 3)).toBe(false);
      expect(await stores.passkeys.acceptCounter("passkey-1", 0, true, T0 + 3)).toBe(false);
      expect(await stores.passkeys.acceptCounter("missing", 9, true, T0 + 3)).toBe(false);
      expect(await stores.passkeys.findByCredentialId("Y3JlZGVudGlhbC0x")).toMatchObject({ counter: 7, backedUp: true, lastUsedAt: T0 + 2 });
    });

    it("lets exactly one of concurrent uses of one counter through", async () => {
      await stores.passkeys.create(aPasskey({ counter: 3 }));
      const accepted = await times(8, () => stores.passkeys.acceptCounter("passkey-1", 4, false, T0));
      expect(accepted.filter(Boolean)).toHaveLength(1);
    });

    it("deletes every passkey of one user", async () => {
      await stores.passkeys.create(aPasskey());
      await stores.passkeys.create(aPasskey({ id: "passkey-theirs", credentialId: "dGhlaXJz", userId: OTHER_USER_ID }));
      expect(await stores.passkeys.deleteByUser(USER_ID)).toBe(1);
      expect(await stores.passkeys.list(USER_ID)).toEqual([]);
      expect(await stores.passkeys.list(OTHER_USER_ID)).toHaveLength(1);
    });
  });
}
