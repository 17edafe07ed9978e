import type { MemoryTables } from "./memory-transactions.ts";
import type { MfaIntent } from "../model.ts";
import type { IntentStore } from "../ports.ts";
import { alreadyExists, deleteWhere } from "./memory-records.ts";

export function createIntentStore(tables: MemoryTables): IntentStore {
  const intents = tables.map<string, MfaIntent>();
  return {
    async create(intent) {
      if (intents.has(intent.id)) throw alreadyExists();
      intents.set(intent.id, { ...intent });
    },
    async consume(id, now) {
      const intent = intents.get(id);
      intents.delete(id);
      return intent !== undefined && intent.expiresAt > now ? { ...intent } : null;
    },
    async deleteByUser(userId) {
      return deleteWhere(intents, (intent) => intent.userId === userId);
    },
  };
}
