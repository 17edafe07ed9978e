import type { Session, SessionStore, TokenPair } from "@gatehouse/core";
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from "kysely";
import { failOnDuplicate } from "./already-exists.ts";
import { atomically } from "./atomically.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import { preparedInsert } from "./prepared-insert.ts";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, SessionsTable } from "./schema.ts";

const SESSION_COLUMNS = [
  "id",
  "user_id",
  "org_id",
  "device_id",
  "access_token_hash",
  "access_expires_at",
  "refresh_token_hash",
  "refresh_expires_at",
  "created_at",
  "expires_at",
  "revoked_at",
  "amr",
  "aal",
  "mfa_at",
] as const;

function toSession(row: Selectable<SessionsTable>): Session {
  return {
    id: row.id,
    userId: row.user_id,
    orgId: row.org_id,
    deviceId: row.device_id,
    accessTokenHash: row.access_token_hash,
    accessExpiresAt: fromDbBigint(row.access_expires_at),
    refreshTokenHash: row.refresh_token_hash,
    refreshExpiresAt: fromDbBigint(row.refresh_expires_at),
    createdAt: fromDbBigint(row.created_at),
    expiresAt: fromDbBigint(row.expires_at),
    revokedAt: row.revoked_at === null ? null : fromDbBigint(row.revoked_at),
    amr: row.amr === "" ? [] : row.amr.split(","),
    aal: row.aal === 2 ? 2 : 1,
    mfaAt: row.mfa_at === null ? null : fromDbBigint(row.mfa_at),
  };
}

/** `expiry`, or the session's absolute end when that comes first: rotation never extends a session. */
function capped(expiry: number) {
  return sql<number>`CASE WHEN expires_at < ${expiry} THEN expires_at ELSE ${expiry} END`;
}

/** The session's columns for a new token pair, each expiry capped at its absolute end (rotation and step-up). */
function tokenColumns(next: TokenPair) {
  return {
    access_token_hash: next.accessTokenHash,
    access_expires_at: capped(next.accessExpiresAt),
    refresh_token_hash: next.refreshTokenHash,
    refresh_expires_at: capped(next.refreshExpiresAt),
  };
}

/** A session still usable at `now` by one of its tokens: what revoking counts. */
function liveAt(now: number) {
  return (eb: ExpressionBuilder<Database, "sessions">) => eb.or([eb("access_expires_at", ">", now), eb("refresh_expires_at", ">", now)]);
}

export function createSessionRepository(db: Kysely<Database>, cache: PreparedQueryCache): SessionStore {
  // Every authenticated request runs this one.
  const selectActiveByAccessTokenHash = preparedQuery(db, cache, "sessions.activeByAccessTokenHash", 2, (accessTokenHash: string, now: number) =>
    db.selectFrom("sessions").selectAll().where("access_token_hash", "=", accessTokenHash).where("revoked_at", "is", null).where("access_expires_at", ">", now),
  );
  // Every sign-in runs this one.
  const insert = preparedInsert(db, cache, "sessions", SESSION_COLUMNS);
  return {
    async create(session) {
      await insert([
        {
          id: session.id,
          user_id: session.userId,
          org_id: session.orgId,
          device_id: session.deviceId,
          access_token_hash: session.accessTokenHash,
          access_expires_at: session.accessExpiresAt,
          refresh_token_hash: session.refreshTokenHash,
          refresh_expires_at: session.refreshExpiresAt,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
          revoked_at: session.revokedAt,
          amr: session.amr.join(","),
          aal: session.aal,
          mfa_at: session.mfaAt,
        },
      ]);
    },

    async listActiveByUser(orgId, userId, now) {
      const rows = await db
        .selectFrom("sessions")
        .selectAll()
        .where("org_id", "=", orgId)
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .where("refresh_expires_at", ">", now)
        .where("expires_at", ">", now)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map(toSession);
    },

    async recordStepUp(sessionId, proof, next, now) {
      const row = await failOnDuplicate(() =>
        db
          .updateTable("sessions")
          .set({ ...tokenColumns(next), amr: proof.amr.join(","), aal: proof.aal, mfa_at: proof.mfaAt })
          .where("id", "=", sessionId)
          .where("revoked_at", "is", null)
          .where("expires_at", ">", now)
          .returningAll()
          .executeTakeFirst(),
      );
      return row === undefined ? null : toSession(row);
    },

    async findActiveByAccessTokenHash(accessTokenHash, now) {
      const [row] = await selectActiveByAccessTokenHash(accessTokenHash, now);
      return row === undefined ? null : toSession(row);
    },

    /*
     * The transaction opens with the guarded UPDATE, a write: SQLite then takes its write lock
     * before reading anything (no stale-snapshot upgrade failure between processes), and in
     * PostgreSQL a concurrent rotation blocks on the row lock, re-checks the guard against the
     * committed row, misses, and then sees the committed retired hash, so it reports `reused`.
     * Inside a unit of work it runs in the open transaction.
     */
    async rotate(refreshTokenHash, next, now, replay) {
      return failOnDuplicate(() =>
        atomically(db, async (trx) => {
          const rotated = await trx
            .updateTable("sessions")
            .set(tokenColumns(next))
            .where("refresh_token_hash", "=", refreshTokenHash)
            .where("revoked_at", "is", null)
            .where("refresh_expires_at", ">", now)
            .where("expires_at", ">", now)
            .returningAll()
            .executeTakeFirst();
          if (rotated !== undefined) {
            // Remembered until the replacing token expires: the old token's own expiry is gone after the UPDATE.
            await trx
              .insertInto("retired_refresh_tokens")
              .values({
                token_hash: refreshTokenHash,
                session_id: rotated.id,
                expires_at: fromDbBigint(rotated.refresh_expires_at),
                successor_hash: next.refreshTokenHash,
                replay_until: now + (replay?.reuseIntervalMs ?? 0),
                sealed_successor: replay?.sealedSuccessor ?? null,
              })
              .execute();
            return { kind: "rotated", session: toSession(rotated) } as const;
          }
          const retired = await trx
            .selectFrom("retired_refresh_tokens")
            .innerJoin("sessions", "sessions.id", "retired_refresh_tokens.session_id")
            .select([
              "retired_refresh_tokens.session_id",
              "retired_refresh_tokens.successor_hash",
              "retired_refresh_tokens.replay_until",
              "retired_refresh_tokens.sealed_successor",
              "sessions.user_id",
              "sessions.org_id",
              "sessions.device_id",
            ])
            .where("retired_refresh_tokens.token_hash", "=", refreshTokenHash)
            .where("retired_refresh_tokens.expires_at", ">", now)
            .executeTakeFirst();
          if (retired === undefined) return { kind: "invalid" } as const;
          const { successor_hash: successorHash, sealed_successor: sealedSuccessor, replay_until: replayUntil } = retired;
          if (successorHash !== null && sealedSuccessor !== null && replayUntil !== null && fromDbBigint(replayUntil) > now) {
            // Still inside the reuse interval: answered only while the successor is the session's current token.
            const session = await trx
              .selectFrom("sessions")
              .selectAll()
              .where("id", "=", retired.session_id)
              .where("refresh_token_hash", "=", successorHash)
              .where("revoked_at", "is", null)
              .where("refresh_expires_at", ">", now)
              .executeTakeFirst();
            if (session !== undefined) return { kind: "replayed", session: toSession(session), sealedSuccessor } as const;
          }
          await trx.updateTable("sessions").set({ revoked_at: now }).where("id", "=", retired.session_id).where("revoked_at", "is", null).execute();
          return { kind: "reused", sessionId: retired.session_id, userId: retired.user_id, orgId: retired.org_id, deviceId: retired.device_id } as const;
        }),
      );
    },

    async revoke(sessionId, now) {
      const result = await db.updateTable("sessions").set({ revoked_at: now }).where("id", "=", sessionId).where("revoked_at", "is", null).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async deleteEnded(now) {
      return deleteEndedSessions(db, now);
    },

    async revokeByUser(userId, now, scope = {}) {
      let revoke = db.updateTable("sessions").set({ revoked_at: now }).where("user_id", "=", userId).where("revoked_at", "is", null).where(liveAt(now));
      if (scope.orgId !== undefined) revoke = revoke.where("org_id", "=", scope.orgId);
      if (scope.keepSessionId !== undefined) revoke = revoke.where("id", "!=", scope.keepSessionId);
      const result = await revoke.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async revokeByDevice(deviceId, now) {
      const result = await db
        .updateTable("sessions")
        .set({ revoked_at: now })
        .where("device_id", "=", deviceId)
        .where("revoked_at", "is", null)
        .where(liveAt(now))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

/** `SessionStore.deleteEnded`, which the purge runs too; a deleted session's retired tokens go with it (foreign key). */
export async function deleteEndedSessions(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db
    .deleteFrom("sessions")
    .where((eb) => eb.or([eb("revoked_at", "is not", null), eb("refresh_expires_at", "<=", now), eb("expires_at", "<=", now)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("retired_refresh_tokens")
            .select("retired_refresh_tokens.session_id")
            .whereRef("retired_refresh_tokens.session_id", "=", "sessions.id")
            .where("retired_refresh_tokens.expires_at", ">", now),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
