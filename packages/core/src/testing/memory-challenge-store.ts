import type { MemoryTables } from "./memory-transactions.ts";
import type { MfaChallenge } from "../model.ts";
import type { ChallengeStore } from "../ports.ts";
import { alreadyExists, copyOrNull, deleteWhere } from "./memory-records.ts";

export function createChallengeStore(tables: MemoryTables): ChallengeStore {
  const challenges = tables.map<string, MfaChallenge>();
  return {
    async create(challenge) {
      if (challenges.has(challenge.id)) throw alreadyExists();
      challenges.set(challenge.id, { ...challenge });
    },
    async findById(id) {
      return copyOrNull(challenges.get(id));
    },
    async claimAttempt(id, maxAttempts, now) {
      const challenge = challenges.get(id);
      if (challenge === undefined || challenge.attempts >= maxAttempts || challenge.expiresAt <= now) return null;
      const claimed = { ...challenge, attempts: challenge.attempts + 1 };
      challenges.set(id, claimed);
      return { ...claimed };
    },
    async releaseAttempt(id) {
      const challenge = challenges.get(id);
      if (challenge !== undefined && challenge.attempts > 0) challenges.set(id, { ...challenge, attempts: challenge.attempts - 1 });
    },
    async consume(id) {
      const challenge = challenges.get(id);
      challenges.delete(id);
      return copyOrNull(challenge);
    },
    async delete(id) {
      return challenges.delete(id);
    },
    async deleteByUser(userId) {
      return deleteWhere(challenges, (challenge) => challenge.userId === userId);
    },
  };
}
