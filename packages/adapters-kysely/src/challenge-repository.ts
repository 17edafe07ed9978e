import type { ChallengeStore, MfaChallenge } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, MfaChallengesTable } from "./schema.ts";

function toChallenge(row: Selectable<MfaChallengesTable>): MfaChallenge {
  return {
    id: row.id,
    userId: row.user_id,
    orgId: row.org_id,
    deviceId: row.device_id,
    phone: row.phone,
    codeHash: row.code_hash,
    attempts: row.attempts,
    expiresAt: fromDbBigint(row.expires_at),
    createdAt: fromDbBigint(row.created_at),
  };
}

export function createChallengeRepository(db: Kysely<Database>): ChallengeStore {
  return {
    async create(challenge) {
      await insertUnlessTaken(
        db.insertInto("mfa_challenges").values({
          id: challenge.id,
          user_id: challenge.userId,
          org_id: challenge.orgId,
          device_id: challenge.deviceId,
          phone: challenge.phone,
          code_hash: challenge.codeHash,
          attempts: challenge.attempts,
          expires_at: challenge.expiresAt,
          created_at: challenge.createdAt,
        }),
      );
    },

    async findById(id) {
      const row = await db.selectFrom("mfa_challenges").selectAll().where("id", "=", id).executeTakeFirst();
      return row === undefined ? null : toChallenge(row);
    },

    async claimAttempt(id, maxAttempts, now) {
      const row = await db
        .updateTable("mfa_challenges")
        .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
        .where("id", "=", id)
        .where("attempts", "<", maxAttempts)
        .where("expires_at", ">", now)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? null : toChallenge(row);
    },

    async consume(id) {
      const row = await db.deleteFrom("mfa_challenges").where("id", "=", id).returningAll().executeTakeFirst();
      return row === undefined ? null : toChallenge(row);
    },

    async delete(id) {
      const result = await db.deleteFrom("mfa_challenges").where("id", "=", id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("mfa_challenges").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
