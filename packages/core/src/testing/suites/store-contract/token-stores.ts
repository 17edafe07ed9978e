import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import type { ResourceServer, SigningKeyRecord } from "../../../records/tokens.ts";
import { expectRejectionKind, MINUTE, T0, times } from "./fixtures.ts";

function aKey(overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  return {
    kid: "kid-1",
    alg: "EdDSA",
    publicJwk: '{"kty":"OKP","crv":"Ed25519","x":"AAAA"}',
    sealedPrivateJwk: "v1.sealed",
    createdAt: T0,
    activatesAt: T0 + MINUTE,
    ...overrides,
  };
}

function aServer(overrides: Partial<ResourceServer> = {}): ResourceServer {
  return { clientId: "rs-1", name: "Billing", audience: "https://billing.example", secretHash: "a".repeat(64), createdAt: T0, ...overrides };
}

/** The `SigningKeyStore` and `ResourceServerStore` contracts; `current` returns the fresh stores of the running test. */
export function describeTokenStoresContract(current: () => Stores): void {
  describe("signing keys", () => {
    let stores: Stores;
    beforeEach(() => {
      stores = current();
    });

    it("lists every key with every field, oldest activation first, ties by kid", async () => {
      expect(await stores.signingKeys.list()).toEqual([]);
      await stores.signingKeys.create(aKey({ kid: "kid-b", activatesAt: T0 + 2 * MINUTE }));
      await stores.signingKeys.create(aKey({ kid: "kid-c", activatesAt: T0 }));
      await stores.signingKeys.create(aKey({ kid: "kid-a", activatesAt: T0 + 2 * MINUTE }));
      expect(await stores.signingKeys.list()).toEqual([
        aKey({ kid: "kid-c", activatesAt: T0 }),
        aKey({ kid: "kid-a", activatesAt: T0 + 2 * MINUTE }),
        aKey({ kid: "kid-b", activatesAt: T0 + 2 * MINUTE }),
      ]);
    });

    it("refuses a duplicate kid with already_exists, keeping the first", async () => {
      await stores.signingKeys.create(aKey());
      await expectRejectionKind(stores.signingKeys.create(aKey({ sealedPrivateJwk: "v1.other" })), "already_exists");
      expect(await stores.signingKeys.list()).toEqual([aKey()]);
    });

    it("of 20 concurrent creates of one kid, exactly one stores it", async () => {
      const results = await times(20, () =>
        stores.signingKeys.create(aKey()).then(
          () => true,
          () => false,
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await stores.signingKeys.list()).toHaveLength(1);
    });

    it("drops a key created in a unit of work that rejects", async () => {
      await expect(
        stores.transaction(async (tx) => {
          await tx.signingKeys.create(aKey());
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await stores.signingKeys.list()).toEqual([]);
    });
  });

  describe("resource servers", () => {
    let stores: Stores;
    beforeEach(() => {
      stores = current();
    });

    it("finds a server by client id with every field, and null for another", async () => {
      await stores.resourceServers.create(aServer());
      expect(await stores.resourceServers.findByClientId("rs-1")).toEqual(aServer());
      expect(await stores.resourceServers.findByClientId("rs-2")).toBeNull();
    });

    it("tells whether an exact audience is registered", async () => {
      await stores.resourceServers.create(aServer());
      expect(await stores.resourceServers.hasAudience("https://billing.example")).toBe(true);
      expect(await stores.resourceServers.hasAudience("https://billing.example/")).toBe(false);
      expect(await stores.resourceServers.hasAudience("https://BILLING.example")).toBe(false);
    });

    it("lists every server oldest first, ties by client id", async () => {
      await stores.resourceServers.create(aServer({ clientId: "rs-b", createdAt: T0 + MINUTE }));
      await stores.resourceServers.create(aServer({ clientId: "rs-c", createdAt: T0 }));
      await stores.resourceServers.create(aServer({ clientId: "rs-a", createdAt: T0 + MINUTE, audience: "https://other.example" }));
      expect((await stores.resourceServers.list()).map((server) => server.clientId)).toEqual(["rs-c", "rs-a", "rs-b"]);
    });

    it("refuses a duplicate client id with already_exists", async () => {
      await stores.resourceServers.create(aServer());
      await expectRejectionKind(stores.resourceServers.create(aServer({ name: "Other" })), "already_exists");
      expect(await stores.resourceServers.findByClientId("rs-1")).toEqual(aServer());
    });
  });
}
