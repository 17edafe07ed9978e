import type { MemoryTables } from "./memory-transactions.ts";
import type { EpochMs } from "../model.ts";
import type { SignInNetworkStore } from "../ports.ts";
import { deleteWhere } from "./memory-records.ts";

export function createSignInNetworkStore(tables: MemoryTables): SignInNetworkStore {
  const seen = tables.map<string, { userId: string; network: string; at: EpochMs }>();
  const keyOf = (userId: string, network: string) => JSON.stringify([userId, network]);
  return {
    async record(userId, network, at, forgetBefore) {
      deleteWhere(seen, (row) => row.userId === userId && row.at < forgetBefore);
      const known = seen.get(keyOf(userId, network));
      seen.set(keyOf(userId, network), { userId, network, at: Math.max(at, known?.at ?? at) });
    },
    async seenSince(userId, network, since) {
      const row = seen.get(keyOf(userId, network));
      return row !== undefined && row.at >= since;
    },
    async forgetUser(userId) {
      return deleteWhere(seen, (row) => row.userId === userId);
    },
  };
}
