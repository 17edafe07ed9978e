import type { ChallengeStore, MfaChallenge } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { fromDbBigint, fromDbBool, toDbBool, type SqlDialect } from "./dialect-differences.ts";
import { preparedInsert } from "./prepared-insert.ts";
import { preparedQuery, preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, MfaChallengesTable } from "./schema.ts";

const CHALLENGE_COLUMNS = [
  "id",
  "user_id",
  "org_id",
  "device_id",
  "phone",
  "code_hash",
  "attempts",
  "expires_at",
  "created_at",
  "step_up_session_id",
  "phishing_resistant",
] as const;

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
    ...(row.step_up_session_id === null ? {} : { stepUpSessionId: row.step_up_session_id }),
    ...(fromDbBool(row.phishing_resistant) ? { phishingResistant: true } : {}),
  };
}

export function createChallengeRepository(db: Kysely<Database>, dialect: SqlDialect, cache: PreparedQueryCache): ChallengeStore {
  // Every MFA sign-in runs these (see preparedQuery).
  const insert = preparedInsert(db, cache, "mfa_challenges", CHALLENGE_COLUMNS);
  const selectById = preparedQuery(db, cache, "mfaChallenges.byId", 1, (id: string) => db.selectFrom("mfa_challenges").selectAll().where("id", "=", id));
  const claim = preparedQuery(db, cache, "mfaChallenges.claimAttempt", 3, (id: string, maxAttempts: number, now: number) =>
    db
      .updateTable("mfa_challenges")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", id)
      .where("attempts", "<", maxAttempts)
      .where("expires_at", ">", now)
      .returningAll(),
  );
  const deleteReturning = preparedQuery(db, cache, "mfaChallenges.consume", 1, (id: string) =>
    db.deleteFrom("mfa_challenges").where("id", "=", id).returningAll(),
  );
  const deleteById = preparedStatement(db, cache, "mfaChallenges.delete", 1, (id: string) => db.deleteFrom("mfa_challenges").where("id", "=", id));
  const release = preparedStatement(db, cache, "mfaChallenges.releaseAttempt", 1, (id: string) =>
    db
      .updateTable("mfa_challenges")
      .set((eb) => ({ attempts: eb("attempts", "-", 1) }))
      .where("id", "=", id)
      .where("attempts", ">", 0),
  );
  const challengeOf = (rows: Selectable<MfaChallengesTable>[]) => (rows[0] === undefined ? null : toChallenge(rows[0]));
  return {
    async create(challenge) {
      await insert([
        {
          id: challenge.id,
          user_id: challenge.userId,
          org_id: challenge.orgId,
          device_id: challenge.deviceId,
          phone: challenge.phone,
          code_hash: challenge.codeHash,
          attempts: challenge.attempts,
          expires_at: challenge.expiresAt,
          created_at: challenge.createdAt,
          step_up_session_id: challenge.stepUpSessionId ?? null,
          phishing_resistant: toDbBool(dialect, challenge.phishingResistant === true),
        },
      ]);
    },

    async findById(id) {
      return challengeOf(await selectById(id));
    },

    async claimAttempt(id, maxAttempts, now) {
      return challengeOf(await claim(id, maxAttempts, now));
    },

    async releaseAttempt(id) {
      await release(id);
    },

    async consume(id) {
      return challengeOf(await deleteReturning(id));
    },

    async delete(id) {
      const result = await deleteById(id);
      return (result.numAffectedRows ?? 0n) > 0n;
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("mfa_challenges").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
