import type { MemoryTables } from "./memory-transactions.ts";
import type { WebAuthnFactor } from "../model.ts";
import type { PasskeyStore } from "../ports.ts";
import { alreadyExists, compareText, copyOrNull, deleteWhere } from "./memory-records.ts";

export function createPasskeyStore(tables: MemoryTables): PasskeyStore {
  const passkeys = tables.map<string, WebAuthnFactor>();
  return {
    async create(factor) {
      if (passkeys.has(factor.id) || [...passkeys.values()].some((held) => held.credentialId === factor.credentialId)) throw alreadyExists();
      passkeys.set(factor.id, { ...factor, transports: [...factor.transports] });
    },
    async list(userId) {
      return [...passkeys.values()]
        .filter((factor) => factor.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((factor) => ({ ...factor }));
    },
    async findByCredentialId(credentialId) {
      return copyOrNull([...passkeys.values()].find((factor) => factor.credentialId === credentialId));
    },
    async acceptCounter(id, counter, backedUp, now) {
      const factor = passkeys.get(id);
      if (factor === undefined || !(factor.counter < counter || (factor.counter === 0 && counter === 0))) return false;
      passkeys.set(id, { ...factor, counter, backedUp, lastUsedAt: now });
      return true;
    },
    async delete(userId, id) {
      if (passkeys.get(id)?.userId !== userId) return false;
      return passkeys.delete(id);
    },
    async deleteByUser(userId) {
      return deleteWhere(passkeys, (factor) => factor.userId === userId);
    },
  };
}
