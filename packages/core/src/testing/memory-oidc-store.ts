import type { EpochMs } from "../model.ts";
import type { OidcRecord } from "../records/oidc.ts";
import type { OidcStore } from "../ports.ts";
import type { MemoryTables } from "./memory-transactions.ts";

const keyOf = (model: string, id: string) => `${model}\u0000${id}`;

export function createMemoryOidcStore(tables: MemoryTables): OidcStore {
  const records = tables.map<string, OidcRecord>();
  const live = (record: OidcRecord | undefined, now: EpochMs): OidcRecord | null =>
    record === undefined || (record.expiresAt !== null && record.expiresAt <= now) ? null : { ...record };
  const findBy = (model: string, now: EpochMs, matches: (record: OidcRecord) => boolean): OidcRecord | null =>
    live(
      [...records.values()].find((record) => record.model === model && matches(record)),
      now,
    );
  return {
    async upsert(record) {
      const consumedAt = records.get(keyOf(record.model, record.id))?.consumedAt ?? null;
      records.set(keyOf(record.model, record.id), { ...record, consumedAt });
    },
    async find(model, id, now) {
      return live(records.get(keyOf(model, id)), now);
    },
    async findByUid(model, uid, now) {
      return findBy(model, now, (record) => record.uid === uid);
    },
    async findByUserCode(model, userCode, now) {
      return findBy(model, now, (record) => record.userCode === userCode);
    },
    async consume(model, id, at) {
      const record = records.get(keyOf(model, id));
      if (record !== undefined && record.consumedAt === null) records.set(keyOf(model, id), { ...record, consumedAt: at });
    },
    async destroy(model, id) {
      records.delete(keyOf(model, id));
    },
    async revokeByGrantId(grantId) {
      for (const [key, record] of records) if (record.grantId === grantId) records.delete(key);
    },
    async listByModel(model, afterId, limit, now) {
      return [...records.values()]
        .filter((record) => record.model === model && (afterId === null || record.id > afterId))
        .flatMap((record) => live(record, now) ?? [])
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit);
    },
  };
}
