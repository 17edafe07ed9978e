import type { SmsTrafficReading, SmsTrafficStore } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { fromDbBigint, type DbBigint } from "./dialect-differences.ts";
import { preparedQuery, preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

interface TotalsRow {
  readonly key: string;
  readonly sent: DbBigint | null;
  readonly verified: DbBigint | null;
  readonly open_until: DbBigint | null;
}

const count = (value: DbBigint | null): number => (value === null ? 0 : fromDbBigint(value));

/**
 * Counts per key and bucket, added by one upsert per call (concurrent adds to one row queue on it),
 * and each key's breaker, opened by an upsert that only replaces a breaker already closed, so the
 * RETURNING row tells the one caller that opened it.
 */
export function createSmsTrafficRepository(db: Kysely<Database>, cache: PreparedQueryCache): SmsTrafficStore {
  /** One prepared upsert per number of keys (the send path always has two: its region and its prefix). */
  const adder = (count: number) =>
    preparedStatement(db, cache, `smsTraffic.add:${count}`, count + 3, (...args: unknown[]) =>
      db
        .insertInto("sms_traffic")
        .values(
          args.slice(0, count).map((key) => ({
            key: key as string,
            bucket_start: args[count] as number,
            sent: args[count + 1] as number,
            verified: args[count + 2] as number,
          })),
        )
        .onConflict((conflict) =>
          conflict.columns(["key", "bucket_start"]).doUpdateSet({
            sent: sql`sms_traffic.sent + excluded.sent`,
            verified: sql`sms_traffic.verified + excluded.verified`,
          }),
        ),
    );
  /** The window's counts and the open breakers, as rows of one shape, in one statement. */
  const reader = (count: number) =>
    preparedQuery(db, cache, `smsTraffic.read:${count}`, count * 2 + 2, (...args: unknown[]) => {
      const keys = args.slice(0, count) as string[];
      const breakerKeys = args.slice(count, count * 2) as string[];
      return db
        .selectFrom("sms_traffic")
        .select((eb) => [
          "key",
          eb.fn.sum<DbBigint | null>("sent").as("sent"),
          eb.fn.sum<DbBigint | null>("verified").as("verified"),
          sql<DbBigint | null>`CAST(NULL AS bigint)`.as("open_until"),
        ])
        .where("key", "in", keys)
        .where("bucket_start", ">=", args[count * 2] as number)
        .groupBy("key")
        .unionAll(
          db
            .selectFrom("sms_breakers")
            .select(["key", sql<DbBigint | null>`CAST(NULL AS bigint)`.as("sent"), sql<DbBigint | null>`CAST(NULL AS bigint)`.as("verified"), "open_until"])
            .where("key", "in", breakerKeys)
            .where("open_until", ">", args[count * 2 + 1] as number),
        );
    });

  return {
    async add(keys, bucketStart, sent, verified) {
      if (keys.length === 0) return;
      // Sorted: concurrent adds lock their rows in one order and never deadlock.
      const unique = [...new Set(keys)].sort();
      await adder(unique.length)(...unique, bucketStart, sent, verified);
    },

    async read(keys, from, now) {
      if (keys.length === 0) return [];
      const rows: TotalsRow[] = await reader(keys.length)(...keys, ...keys, from, now);
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
