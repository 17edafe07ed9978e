import { MAX_DEVICES_PER_USER, type Device, type DeviceStore } from "@gatehouse/core";
import { sql, type Kysely, type Selectable } from "kysely";
import { failOnDuplicate } from "./already-exists.ts";
import { atomically } from "./atomically.ts";
import { fromDbBigint, fromDbBool, toDbBool, type DbBool, type SqlDialect } from "./dialect-differences.ts";
import { preparedQuery, preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, DevicesTable } from "./schema.ts";

export function toDevice(row: Selectable<DevicesTable>): Device {
  return {
    id: row.id,
    userId: row.user_id,
    orgId: row.org_id,
    fingerprintHash: row.fingerprint_hash,
    userAgent: row.user_agent,
    lastAddress: row.last_address,
    trusted: fromDbBool(row.trusted),
    trustedUntil: row.trusted_until === null ? null : fromDbBigint(row.trusted_until),
    trustRevokedAt: row.trust_revoked_at === null ? null : fromDbBigint(row.trust_revoked_at),
    createdAt: fromDbBigint(row.created_at),
    lastSeenAt: fromDbBigint(row.last_seen_at),
    sessionIssuedAt: row.session_issued_at === null ? null : fromDbBigint(row.session_issued_at),
  };
}

/** A device's columns as the arguments of a prepared statement, in table order (`deviceArguments`). */
type DeviceArguments = [
  id: string,
  userId: string,
  orgId: string,
  fingerprintHash: string,
  userAgent: string | null,
  lastAddress: string | null,
  trusted: DbBool,
  trustedUntil: number | null,
  trustRevokedAt: number | null,
  createdAt: number,
  lastSeenAt: number,
  sessionIssuedAt: number | null,
];

const DEVICE_ARITY = 12;

function deviceArguments(dialect: SqlDialect, device: Device): DeviceArguments {
  const { id, userId, orgId, fingerprintHash, userAgent, lastAddress, trusted, trustedUntil, trustRevokedAt, createdAt, lastSeenAt, sessionIssuedAt } = device;
  return [
    id,
    userId,
    orgId,
    fingerprintHash,
    userAgent,
    lastAddress,
    toDbBool(dialect, trusted),
    trustedUntil,
    trustRevokedAt,
    createdAt,
    lastSeenAt,
    sessionIssuedAt,
  ];
}

export function createDeviceRepository(db: Kysely<Database>, dialect: SqlDialect, cache: PreparedQueryCache): DeviceStore {
  // Every sign-in runs these (see preparedQuery).
  const upsert = preparedQuery(db, cache, "devices.getOrCreate", DEVICE_ARITY, (...device: DeviceArguments) => {
    const [id, userId, orgId, fingerprintHash, userAgent, lastAddress, trusted, trustedUntil, trustRevokedAt, createdAt, lastSeenAt, sessionIssuedAt] = device;
    return db
      .insertInto("devices")
      .values({
        id,
        user_id: userId,
        org_id: orgId,
        fingerprint_hash: fingerprintHash,
        user_agent: userAgent,
        last_address: lastAddress,
        trusted,
        trusted_until: trustedUntil,
        trust_revoked_at: trustRevokedAt,
        created_at: createdAt,
        last_seen_at: lastSeenAt,
        session_issued_at: sessionIssuedAt,
      })
      .onConflict((conflict) =>
        conflict.columns(["user_id", "org_id", "fingerprint_hash"]).doUpdateSet({ last_seen_at: lastSeenAt, user_agent: userAgent, last_address: lastAddress }),
      )
      .returningAll();
  });
  // Every Login runs it, before the password hash (the guessing budget's key depends on it).
  const selectWithSession = preparedQuery(db, cache, "devices.findWithSession", 2, (userId: string, fingerprintHash: string) =>
    db
      .selectFrom("devices")
      .selectAll()
      .where("user_id", "=", userId)
      .where("fingerprint_hash", "=", fingerprintHash)
      .where("session_issued_at", "is not", null)
      .limit(1),
  );
  const markIssued = preparedStatement(db, cache, "devices.markSessionIssued", 2, (deviceId: string, now: number) =>
    db
      .updateTable("devices")
      .set({ session_issued_at: sql<number>`coalesce(session_issued_at, ${now})` })
      .where("id", "=", deviceId),
  );
  const markIssuedAndTrusted = preparedStatement(db, cache, "devices.markSessionIssuedAndTrusted", 3, (deviceId: string, now: number, trustedUntil: number) =>
    db
      .updateTable("devices")
      .set({
        session_issued_at: sql<number>`coalesce(session_issued_at, ${now})`,
        trusted: toDbBool(dialect, true),
        trusted_until: trustedUntil,
        trust_revoked_at: null,
      })
      .where("id", "=", deviceId),
  );
  return {
    async getOrCreate(candidate) {
      // One upsert: the unique (user_id, org_id, fingerprint) index decides the race, and a device seen before
      // comes back with its last sighting updated. Ids are random, so the row is new exactly when it has ours.
      const [row] = await failOnDuplicate(() => upsert(...deviceArguments(dialect, candidate)));
      if (row === undefined) throw new Error("the device upsert returned no row");
      const created = row.id === candidate.id;
      if (created) await keepNewestDevices(db, dialect, candidate);
      return { device: toDevice(row), created };
    },

    async findById(id) {
      const row = await db.selectFrom("devices").selectAll().where("id", "=", id).executeTakeFirst();
      return row === undefined ? null : toDevice(row);
    },

    async listByUser(orgId, userId) {
      const rows = await db
        .selectFrom("devices")
        .selectAll()
        .where("user_id", "=", userId)
        .where("org_id", "=", orgId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(toDevice);
    },

    async markTrusted(deviceId, trustedUntil) {
      const result = await db
        .updateTable("devices")
        .set({ trusted: toDbBool(dialect, true), trusted_until: trustedUntil, trust_revoked_at: null })
        .where("id", "=", deviceId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async markSessionIssued(deviceId, now, trustedUntil) {
      // One statement: the first issuance is kept, whatever the concurrency; trust, when asked, goes in the same write.
      await (trustedUntil === undefined ? markIssued(deviceId, now) : markIssuedAndTrusted(deviceId, now, trustedUntil));
    },

    async revokeTrust(deviceId, now) {
      const result = await db
        .updateTable("devices")
        .set({ trusted: toDbBool(dialect, false), trusted_until: null, trust_revoked_at: now })
        .where("id", "=", deviceId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async evictByUser(userId, now, scope = {}) {
      return atomically(db, async (trx) => {
        let reached = trx.updateTable("devices").where("user_id", "=", userId);
        if (scope.orgId !== undefined) reached = reached.where("org_id", "=", scope.orgId);
        if (scope.keepDeviceId !== undefined) reached = reached.where("id", "!=", scope.keepDeviceId);
        // Two evictions locking overlapping rows in scan order, each in its own, deadlocked on PostgreSQL: every
        // row is locked first, in id order, so concurrent ones wait in turn (SQLite writes one transaction at a time).
        if (dialect === "postgres") {
          let locked = trx.selectFrom("devices").select("id").where("user_id", "=", userId);
          if (scope.orgId !== undefined) locked = locked.where("org_id", "=", scope.orgId);
          if (scope.keepDeviceId !== undefined) locked = locked.where("id", "!=", scope.keepDeviceId);
          await locked.orderBy("id").forUpdate().execute();
        }
        const result = await reached
          .set({ trusted: toDbBool(dialect, false), trusted_until: null, trust_revoked_at: now })
          .where("trusted", "=", toDbBool(dialect, true))
          .where("trusted_until", ">", now)
          .executeTakeFirst();
        await reached.set({ session_issued_at: null }).execute();
        return Number(result.numUpdatedRows);
      });
    },

    async findWithSession(userId, fingerprintHash) {
      const [row] = await selectWithSession(userId, fingerprintHash);
      return row === undefined ? null : toDevice(row);
    },

    async deleteUnused(now, seenBefore) {
      return deleteUnusedDevices(db, now, seenBefore);
    },
  };
}

/** `DeviceStore.deleteUnused`, which the purge runs too. */
export async function deleteUnusedDevices(db: Kysely<Database>, now: number, seenBefore: number): Promise<number> {
  const result = await db
    .deleteFrom("devices")
    .where("last_seen_at", "<", seenBefore)
    .where((eb) => eb.or([sql<boolean>`NOT trusted`, eb("trusted_until", "is", null), eb("trusted_until", "<=", now)]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom("sessions").select("sessions.id").whereRef("sessions.device_id", "=", "devices.id"))))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * After `created` was stored, deletes the user's devices past the `MAX_DEVICES_PER_USER` it keeps: the new one,
 * then those trusted at its sighting, then the most recently seen.
 */
async function keepNewestDevices(db: Kysely<Database>, dialect: SqlDialect, created: Device): Promise<void> {
  const now = created.lastSeenAt;
  const unbounded = dialect === "sqlite" ? sql`LIMIT -1` : sql``;
  await atomically(db, async (trx) => {
    // On PostgreSQL a user's creations take turns on the user's row (a lock that foreign-key checks do not wait
    // on), so each one's DELETE sees the devices the others made and the user settles at the bound; SQLite
    // writes one transaction at a time.
    if (dialect === "postgres") await sql`SELECT id FROM users WHERE id = ${created.userId} FOR NO KEY UPDATE`.execute(trx);
    await sql`
      DELETE FROM devices WHERE id IN (
        SELECT id FROM devices WHERE user_id = ${created.userId}
        ORDER BY CASE WHEN id = ${created.id} THEN 0 ELSE 1 END,
                 CASE WHEN trusted = ${toDbBool(dialect, true)} AND trusted_until > ${now} THEN 0 ELSE 1 END,
                 last_seen_at DESC, id DESC
        ${unbounded} OFFSET ${MAX_DEVICES_PER_USER})`.execute(trx);
  });
}
