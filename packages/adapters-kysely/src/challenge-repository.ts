import { claimedWithFacts, type ChallengeStore, type ClaimedChallenge, type MfaChallenge, type SignInFactsStore } from "@gatehouse/core";
import { sql, type Kysely, type Selectable } from "kysely";
import { fromDbBigint, type SqlDialect } from "./dialect-differences.ts";
import { preparedQuery, preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import { ridingInsert } from "./riding-insert.ts";
import type { Database, MfaChallengesTable } from "./schema.ts";
import { deviceOfUser, signInFactsColumns, signInFactsOf, type SignInRow } from "./sign-in-facts-repository.ts";

const CHALLENGE_COLUMNS = ["id", "user_id", "org_id", "device_id", "phone", "code_hash", "attempts", "expires_at", "created_at"] as const;

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

/** The claimed challenge's columns, prefixed apart from the user's in `claimAttempt`'s one statement. */
type ClaimedRow = { readonly [Column in keyof MfaChallengesTable & string as `challenge_${Column}`]: Selectable<MfaChallengesTable>[Column] } & SignInRow;

export function createChallengeRepository(db: Kysely<Database>, dialect: SqlDialect, cache: PreparedQueryCache, signInFacts: SignInFactsStore): ChallengeStore {
  // Every MFA sign-in runs these (see preparedQuery).
  const insert = ridingInsert(db, cache, "mfa_challenges", CHALLENGE_COLUMNS);
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
  // PostgreSQL claims and reads the facts in one statement, a round trip less; SQLite allows no UPDATE in a
  // WITH clause, and there the second statement costs no round trip.
  const claimWithFacts = preparedQuery(db, cache, "mfaChallenges.claimAttemptWithFacts", 3, (id: string, maxAttempts: number, now: number) => {
    const challengeColumns = sql.join(CHALLENGE_COLUMNS.map((column) => sql`claimed.${sql.ref(column)} AS ${sql.id(`challenge_${column}`)}`));
    const query = sql<ClaimedRow>`
      WITH claimed AS (
        UPDATE mfa_challenges SET attempts = attempts + 1
        WHERE id = ${id} AND attempts < ${maxAttempts} AND expires_at > ${now}
        RETURNING *)
      SELECT ${challengeColumns}, ${signInFactsColumns(sql.ref("claimed.org_id"), deviceOfUser(sql.ref("claimed.device_id"), sql.ref("claimed.org_id")))}
      FROM claimed JOIN users ON users.id = claimed.user_id`;
    return { compile: () => query.compile(db) };
  });
  const deleteReturning = preparedQuery(db, cache, "mfaChallenges.consume", 1, (id: string) =>
    db.deleteFrom("mfa_challenges").where("id", "=", id).returningAll(),
  );
  const deleteById = preparedStatement(db, cache, "mfaChallenges.delete", 1, (id: string) => db.deleteFrom("mfa_challenges").where("id", "=", id));
  // The claim holds the row until the transaction ends, so nothing waits on this delete's answer.
  const deleteClaimed = preparedStatement(db, cache, "mfaChallenges.deleteClaimed", 1, (id: string) => db.deleteFrom("mfa_challenges").where("id", "=", id), {
    rides: true,
  });
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
        },
      ]);
    },

    async findById(id) {
      return challengeOf(await selectById(id));
    },

    async claimAttempt(id, maxAttempts, now): Promise<ClaimedChallenge | null> {
      if (dialect === "postgres") {
        const [row] = await claimWithFacts(id, maxAttempts, now);
        return row === undefined ? null : { challenge: claimedChallengeOf(row), facts: signInFactsOf(row, row.challenge_org_id) };
      }
      return claimedWithFacts(challengeOf(await claim(id, maxAttempts, now)), signInFacts.read);
    },

    async consume(id) {
      return challengeOf(await deleteReturning(id));
    },

    async delete(id) {
      const result = await deleteById(id);
      return (result.numAffectedRows ?? 0n) > 0n;
    },

    async deleteClaimed(id) {
      await deleteClaimed(id);
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("mfa_challenges").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function claimedChallengeOf(row: ClaimedRow): MfaChallenge {
  return toChallenge({
    id: row.challenge_id,
    user_id: row.challenge_user_id,
    org_id: row.challenge_org_id,
    device_id: row.challenge_device_id,
    phone: row.challenge_phone,
    code_hash: row.challenge_code_hash,
    attempts: row.challenge_attempts,
    expires_at: row.challenge_expires_at,
    created_at: row.challenge_created_at,
  });
}
