import type { SmsTrafficReading, SmsTrafficStore } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { fromDbBigint, type DbBigint } from "./dialect-differences.ts";
import { RIDES_WITH_NEXT_STATEMENT } from "./rides-with-next-statement.ts";
import type { Database } from "./schema.ts";

interface TotalsRow {
  readonly key: string;
  readonly sent: DbBigint | null;
  readonly verified: DbBigint | null;
  readonly open_until: DbBigint | null;
}

const count = (value: DbBigint | null): number => (value === null ? 0 : fromDbBigint(value));

/**
 * Counts per key and bucket, added by one upsert per call (concurrent adds to one row queue on it;
 * it answers nothing, so inside a transaction the PostgreSQL pool sends it with the next statement),
 * and each key's breaker, opened by an upsert that only replaces a breaker already closed, so the
 * RETURNING row tells the one caller that opened it.
 */
export function createSmsTrafficRepository(db: Kysely<Database>): SmsTrafficStore {
  return {
    async add(keys, bucketStart, sent, verified) {
      if (keys.length === 0) return;
      // Sorted: concurrent adds lock their rows in one order and never deadlock.
      const rows = [...new Set(keys)].sort().map((key) => sql`(${key}, ${bucketStart}, ${sent}, ${verified})`);
      await sql`${sql.raw(RIDES_WITH_NEXT_STATEMENT)}INSERT INTO sms_traffic (key, bucket_start, sent, verified) VALUES ${sql.join(rows)}
        ON CONFLICT (key, bucket_start) DO UPDATE SET sent = sms_traffic.sent + excluded.sent, verified = sms_traffic.verified + excluded.verified`.execute(db);
    },

    async read(keys, from, now) {
      if (keys.length === 0) return [];
      // One statement: the counts of the window and the open breakers, as rows of one shape.
      const { rows } = await sql<TotalsRow>`
        SELECT key, SUM(sent) AS sent, SUM(verified) AS verified, CAST(NULL AS bigint) AS open_until
          FROM sms_traffic WHERE key IN (${sql.join(keys)}) AND bucket_start >= ${from} GROUP BY key
        UNION ALL
        SELECT key, CAST(NULL AS bigint), CAST(NULL AS bigint), open_until
          FROM sms_breakers WHERE key IN (${sql.join(keys)}) AND open_until > ${now}`.execute(db);
      const readings = new Map<string, { sent: number; verified: number; openUntil: number | null }>();
      for (const row of rows) {
        const reading = readings.get(row.key) ?? { sent: 0, verified: 0, openUntil: null };
        reading.sent += count(row.sent);
        reading.verified += count(row.verified);
        if (row.open_until !== null) reading.openUntil = fromDbBigint(row.open_until);
        readings.set(row.key, reading);
      }
      return keys.map((key): SmsTrafficReading => ({ key, ...(readings.get(key) ?? { sent: 0, verified: 0, openUntil: null }) }));
    },

    async trip(key, until, now) {
      const opened = await db
        .insertInto("sms_breakers")
        .values({ key, open_until: until })
        .onConflict((conflict) => conflict.column("key").doUpdateSet({ open_until: until }).where("sms_breakers.open_until", "<=", now))
        .returning("key")
        .executeTakeFirst();
      return opened !== undefined;
    },

    async report(from, to) {
      const rows = await db
        .selectFrom("sms_traffic")
        .select((eb) => ["key", eb.fn.sum<DbBigint>("sent").as("sent"), eb.fn.sum<DbBigint>("verified").as("verified")])
        .where("bucket_start", ">=", from)
        .where("bucket_start", "<", to)
        .groupBy("key")
        .orderBy("key")
        .execute();
      return rows.map((row) => ({ key: row.key, sent: count(row.sent), verified: count(row.verified) }));
    },
  };
}
