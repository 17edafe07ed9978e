/**
 * `oidc-provider`'s storage adapter over Gatehouse's `OidcStore` port: SQLite or PostgreSQL through the
 * kysely repository, one record per (model, id). Consumption is a column of its own, read back as the
 * payload's `consumed` (epoch seconds), so an upsert never clears it.
 */
import type { Clock, OidcRecord, OidcStore } from "@gatehouse/core";
import type { Adapter, AdapterFactory, AdapterPayload } from "oidc-provider";

function payloadOf(record: OidcRecord | null): AdapterPayload | undefined {
  if (record === null) return undefined;
  const payload = JSON.parse(record.payload) as AdapterPayload;
  return record.consumedAt === null ? payload : { ...payload, consumed: Math.floor(record.consumedAt / 1000) };
}

export function oidcAdapter(store: OidcStore, clock: Clock): AdapterFactory {
  return (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      await store.upsert({
        model,
        id,
        payload: JSON.stringify(payload),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn === undefined ? null : clock.now() + expiresIn * 1000,
      });
    },
    find: async (id) => payloadOf(await store.find(model, id, clock.now())),
    findByUid: async (uid) => payloadOf(await store.findByUid(model, uid, clock.now())),
    findByUserCode: async (userCode) => payloadOf(await store.findByUserCode(model, userCode, clock.now())),
    consume: (id) => store.consume(model, id, clock.now()),
    destroy: (id) => store.destroy(model, id),
    revokeByGrantId: (grantId) => store.revokeByGrantId(grantId),
  });
}
