import { createHash } from "node:crypto";
import { migrateToLatest, type Database } from "@gatehouse/adapters-kysely";
import { sql, type Kysely } from "kysely";

/** First half of every migration lock key: "GATE" in ASCII, so the locks are recognisable in `pg_locks` (classid 0x47415445). */
export const MIGRATION_LOCK_CLASS = 0x47415445;

/**
 * The two-part advisory lock key that serialises Gatehouse migrations in one schema:
 * (MIGRATION_LOCK_CLASS, the first 4 bytes of SHA-256 of the schema name). Replicas of one install
 * queue on it; installs in other schemas of the same database have their own and never wait for it.
 */
export function migrationLockKeys(schema: string): readonly [number, number] {
  return [MIGRATION_LOCK_CLASS, createHash("sha256").update(schema).digest().readInt32BE(0)];
}

/**
 * Runs `migrateToLatest` while holding the schema's advisory lock, all on ONE pooled connection: a
 * session lock belongs to the connection that took it, so taking it on one pooled connection and
 * migrating on others would guard nothing. Replicas that start together queue on the lock; the
 * first applies the migrations and the rest find the schema current. The lock dies with the
 * session, so a replica killed mid-migration cannot leave it held. (It needs a real session:
 * behind PgBouncer in transaction mode, point the migrating replica at PostgreSQL directly.)
 */
export async function migrateUnderLock(db: Kysely<Database>, hashDeviceFingerprint?: (fingerprint: string) => string): Promise<string[]> {
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(connection);
    const schema = rows[0]?.schema;
    if (schema === null || schema === undefined) throw new Error("no schema to migrate: the connection's search_path names no existing schema");
    const [classId, objectId] = migrationLockKeys(schema);
    await sql`select pg_advisory_lock(${sql.lit(classId)}, ${sql.lit(objectId)})`.execute(connection);
    try {
      return await migrateToLatest(connection, { migrationTableSchema: schema, hashDeviceFingerprint });
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(classId)}, ${sql.lit(objectId)})`.execute(connection);
    }
  });
}
