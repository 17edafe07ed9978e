import { beforeEach, describe, expect, it } from "vitest";
import type { OidcRecord } from "../../../records/oidc.ts";
import type { Stores } from "../../../ports.ts";
import { MINUTE, T0 } from "./fixtures.ts";

type NewRecord = Omit<OidcRecord, "consumedAt">;

function aRecord(overrides: Partial<NewRecord> = {}): NewRecord {
  return {
    model: "AuthorizationCode",
    id: "code-1",
    payload: '{"kind":"AuthorizationCode"}',
    grantId: "grant-1",
    uid: null,
    userCode: null,
    expiresAt: T0 + MINUTE,
    ...overrides,
  };
}

/** Every model `oidc-provider` stores, each with the lookup it is found by: the contract is run per model kind. */
const MODELS: readonly { model: string; record: Partial<NewRecord>; lookup: "id" | "uid" | "userCode" }[] = [
  { model: "Client", record: { grantId: null, expiresAt: null }, lookup: "id" },
  { model: "Grant", record: { grantId: "grant-1" }, lookup: "id" },
  { model: "AuthorizationCode", record: {}, lookup: "id" },
  { model: "AccessToken", record: {}, lookup: "id" },
  { model: "RefreshToken", record: {}, lookup: "id" },
  { model: "Interaction", record: { grantId: null }, lookup: "id" },
  { model: "Session", record: { grantId: null, uid: "uid-1" }, lookup: "uid" },
  { model: "DeviceCode", record: { userCode: "ABCD-EFGH" }, lookup: "userCode" },
];

/** The `OidcStore` contract; `current` returns the fresh stores of the running test. */
export function describeOidcStoreContract(current: () => Stores): void {
  describe("oidc records", () => {
    let stores: Stores;
    beforeEach(() => {
      stores = current();
    });

    function lookUp(model: string, lookup: "id" | "uid" | "userCode", record: NewRecord, now: number): Promise<OidcRecord | null> {
      if (lookup === "uid") return stores.oidc.findByUid(model, record.uid!, now);
      if (lookup === "userCode") return stores.oidc.findByUserCode(model, record.userCode!, now);
      return stores.oidc.find(model, record.id, now);
    }

    it.each(MODELS)(
      "$model: stored with every field, found by its $lookup until it expires, replaced by an upsert, destroyed",
      async ({ model, record, lookup }) => {
        const stored = aRecord({ model, ...record });
        expect(await lookUp(model, lookup, stored, T0)).toBeNull();
        await stores.oidc.upsert(stored);
        expect(await lookUp(model, lookup, stored, T0)).toEqual({ ...stored, consumedAt: null });
        expect(await lookUp(model === "Grant" ? "Session" : "Grant", lookup, stored, T0)).toBeNull();
        if (stored.expiresAt !== null) expect(await lookUp(model, lookup, stored, stored.expiresAt)).toBeNull();
        await stores.oidc.upsert({ ...stored, payload: '{"kind":"replaced"}' });
        expect((await lookUp(model, lookup, stored, T0))?.payload).toBe('{"kind":"replaced"}');
        await stores.oidc.destroy(model, stored.id);
        expect(await lookUp(model, lookup, stored, T0)).toBeNull();
      },
    );

    it("consume keeps the first consumption's time, and an upsert does not undo it", async () => {
      await stores.oidc.upsert(aRecord());
      await stores.oidc.consume("AuthorizationCode", "code-1", T0 + 1);
      await stores.oidc.consume("AuthorizationCode", "code-1", T0 + 2);
      expect((await stores.oidc.find("AuthorizationCode", "code-1", T0))?.consumedAt).toBe(T0 + 1);
      await stores.oidc.upsert(aRecord({ payload: "{}" }));
      expect(await stores.oidc.find("AuthorizationCode", "code-1", T0)).toEqual({ ...aRecord({ payload: "{}" }), consumedAt: T0 + 1 });
      await stores.oidc.consume("AuthorizationCode", "missing", T0);
      expect(await stores.oidc.find("AuthorizationCode", "missing", T0)).toBeNull();
    });

    it("revokeByGrantId removes every model of that grant and nothing else", async () => {
      await stores.oidc.upsert(aRecord({ model: "Grant", id: "grant-1" }));
      await stores.oidc.upsert(aRecord());
      await stores.oidc.upsert(aRecord({ model: "RefreshToken", id: "rt-1" }));
      await stores.oidc.upsert(aRecord({ model: "RefreshToken", id: "rt-2", grantId: "grant-2" }));
      await stores.oidc.revokeByGrantId("grant-1");
      expect(await stores.oidc.find("Grant", "grant-1", T0)).toBeNull();
      expect(await stores.oidc.find("AuthorizationCode", "code-1", T0)).toBeNull();
      expect(await stores.oidc.find("RefreshToken", "rt-1", T0)).toBeNull();
      expect(await stores.oidc.find("RefreshToken", "rt-2", T0)).not.toBeNull();
    });

    it("listByModel pages through the model's live records by id, and no other model's", async () => {
      for (const id of ["c", "a", "b", "d"]) await stores.oidc.upsert(aRecord({ model: "GatehouseSessionOfGrant", id, grantId: id }));
      await stores.oidc.upsert(aRecord({ model: "GatehouseSessionOfGrant", id: "expired", expiresAt: T0 }));
      await stores.oidc.upsert(aRecord({ model: "Grant", id: "a0" }));
      const ids = async (afterId: string | null, limit: number) =>
        (await stores.oidc.listByModel("GatehouseSessionOfGrant", afterId, limit, T0)).map((record) => record.id);
      expect(await ids(null, 3)).toEqual(["a", "b", "c"]);
      expect(await ids("c", 3)).toEqual(["d"]);
      expect(await ids("d", 3)).toEqual([]);
      expect((await stores.oidc.listByModel("GatehouseSessionOfGrant", null, 1, T0))[0]).toEqual({
        ...aRecord({ model: "GatehouseSessionOfGrant", id: "a", grantId: "a" }),
        consumedAt: null,
      });
    });

    it("the same id under two models is two records", async () => {
      await stores.oidc.upsert(aRecord({ model: "AccessToken", id: "same", payload: "1" }));
      await stores.oidc.upsert(aRecord({ model: "RefreshToken", id: "same", payload: "2" }));
      expect((await stores.oidc.find("AccessToken", "same", T0))?.payload).toBe("1");
      expect((await stores.oidc.find("RefreshToken", "same", T0))?.payload).toBe("2");
    });
  });
}
