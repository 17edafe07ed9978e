import type { MemoryTables } from "./memory-transactions.ts";
import type { TotpFactor } from "../model.ts";
import type { TotpStore } from "../ports.ts";
import { alreadyExists, compareText, copyOrNull, deleteWhere } from "./memory-records.ts";

export function createTotpStore(tables: MemoryTables): TotpStore {
  const apps = tables.map<string, TotpFactor>();
  return {
    async create(factor) {
      if (apps.has(factor.id)) throw alreadyExists();
      apps.set(factor.id, { ...factor });
    },
    async find(id) {
      return copyOrNull(apps.get(id));
    },
    async list(userId) {
      return [...apps.values()]
        .filter((factor) => factor.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((factor) => ({ ...factor }));
    },
    async confirm(id, now) {
      const factor = apps.get(id);
      if (factor === undefined || factor.confirmedAt !== null) return false;
      apps.set(id, { ...factor, confirmedAt: now });
      return true;
    },
    async acceptStep(id, step, now) {
      const factor = apps.get(id);
      if (factor === undefined || (factor.lastStep !== null && factor.lastStep >= step)) return false;
      apps.set(id, { ...factor, lastStep: step, lastUsedAt: now });
      return true;
    },
    async delete(userId, id) {
      if (apps.get(id)?.userId !== userId) return false;
      return apps.delete(id);
    },
    async deleteByUser(userId) {
      return deleteWhere(apps, (factor) => factor.userId === userId);
    },
  };
}
