import type { MemoryTables } from "./memory-transactions.ts";
import type { EmailToken } from "../model.ts";
import type { EmailTokenStore } from "../ports.ts";
import { alreadyExists, deleteWhere } from "./memory-records.ts";

export function createEmailTokenStore(tables: MemoryTables): EmailTokenStore {
  const tokens = tables.map<string, EmailToken>();
  return {
    async create(token) {
      if (tokens.has(token.tokenHash)) throw alreadyExists();
      tokens.set(token.tokenHash, { ...token });
    },
    async find(tokenHash, purpose, now) {
      const token = tokens.get(tokenHash);
      return token !== undefined && token.purpose === purpose && token.expiresAt > now ? { ...token } : null;
    },
    async consume(tokenHash, purpose, now) {
      const token = tokens.get(tokenHash);
      if (token === undefined || token.purpose !== purpose) return null;
      tokens.delete(tokenHash);
      return token.expiresAt > now ? { ...token } : null;
    },
    async deleteByUser(userId, purpose) {
      return deleteWhere(tokens, (token) => token.userId === userId && token.purpose === purpose);
    },
    async hasLive(userId, purpose, now) {
      return [...tokens.values()].some((token) => token.userId === userId && token.purpose === purpose && token.expiresAt > now);
    },
  };
}
