import type { MemoryTables } from "./memory-transactions.ts";
import type { RecoveryCode } from "../model.ts";
import type { RecoveryCodeStore } from "../ports.ts";
import { deleteWhere, keyOf } from "./memory-records.ts";

export function createRecoveryCodeStore(tables: MemoryTables): RecoveryCodeStore {
  const codes = tables.map<string, RecoveryCode>();
  const countOf = (userId: string) => [...codes.values()].filter((code) => code.userId === userId).length;
  return {
    async replace(userId, replacements) {
      deleteWhere(codes, (code) => code.userId === userId);
      for (const code of replacements) codes.set(keyOf(userId, code.codeHash), { ...code, userId });
    },
    async consume(userId, codeHash) {
      if (!codes.delete(keyOf(userId, codeHash))) return null;
      return countOf(userId);
    },
    async count(userId) {
      return countOf(userId);
    },
    async deleteByUser(userId) {
      return deleteWhere(codes, (code) => code.userId === userId);
    },
  };
}
