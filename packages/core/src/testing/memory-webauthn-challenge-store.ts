import type { MemoryTables } from "./memory-transactions.ts";
import type { WebAuthnChallenge } from "../model.ts";
import type { WebAuthnChallengeStore } from "../ports.ts";
import { deleteWhere } from "./memory-records.ts";

export function createWebAuthnChallengeStore(tables: MemoryTables): WebAuthnChallengeStore {
  const challenges = tables.map<string, WebAuthnChallenge>();
  return {
    async put(challenge) {
      challenges.set(challenge.id, { ...challenge });
    },
    async consume(id, ceremony, now) {
      const challenge = challenges.get(id);
      if (challenge === undefined || challenge.ceremony !== ceremony) return null;
      challenges.delete(id);
      return challenge.expiresAt > now ? { ...challenge } : null;
    },
    async deleteByUser(userId) {
      deleteWhere(challenges, (challenge) => challenge.userId === userId);
    },
  };
}
