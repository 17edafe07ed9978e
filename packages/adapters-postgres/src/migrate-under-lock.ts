import { migrateToLatest, type Database } from "@gatehouse/adapters-kysely";
import { sql, type Kysely } from "kysely";

/**
 * Key of the session-level advisory lock that serialises Gatehouse migrations across replicas:
 * "GATEHOUS" in ASCII, so it is recognisable in `pg_locks` (classid 0x47415445, objid 0x484f5553).
 */
export const MIGRATION_LOCK_KEY = 0x47415445484f5553n;

/**
 * Runs `migrateToLatest` while holding the advisory lock, all on ONE pooled connection: a session
 * lock belongs to the connection that took it, so taking it on one pooled connection and
 * migrating on others would guard nothing. Replicas that start together queue on the lock; the
 * first applies the migrations and the rest find the schema current. The lock dies with the
 * session, so a replica killed mid-migration cannot leave it held. (It needs a real session:
 * behind PgBouncer in transaction mode, point the migrating replica at PostgreSQL directly.)
 */
export async function migrateUnderLock(db: Kysely<Database>): Promise<string[]> {
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    try {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(connection);
      return await migrateToLatest(connection, { migrationTableSchema: rows[0]!.schema });
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    }
  });
}
