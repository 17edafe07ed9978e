import { slidingLogRetryAt, type LoggedUnit, type RateLimiter } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { fromDbBigint, unitLogSql, type DbBigint, type SqlDialect } from "./dialect-differences.ts";
import type { Database } from "./schema.ts";

/**
 * The sliding log: one row per key holding the units taken in the window (see `RateLimiter`).
 * Each call is one statement. `consume` is an upsert whose update recomputes the log from the
 * conflicting row itself (PostgreSQL locks that row first, so concurrent callers on several
 * connections queue on it and each sees the previous one's result; SQLite serialises writers),
 * and it records in `taken_unit` whether it took a unit, because RETURNING shows only the new row.
 */
export function createRateLimiter(db: Kysely<Database>, dialect: SqlDialect): RateLimiter {
  const log = unitLogSql(dialect);
  const current = sql`rate_limits.units`;
  return {
    async consume(key, limit, windowMs, now) {
      if (!Number.isInteger(limit) || limit < 1) throw new RangeError("a rate limit must be a whole number ≥ 1");
      const room = sql`count(*) < ${limit}`;
      const nextUnit = sql`rate_limits.next_unit`;
      const expiresAt = now + windowMs;
      const { rows } = await sql<{ units: string; taken_unit: DbBigint }>`
        INSERT INTO rate_limits (key, units, next_unit, taken_unit, expires_at)
        VALUES (${key}, ${JSON.stringify([[now, 1]])}, 2, 1, ${expiresAt})
        ON CONFLICT (key) DO UPDATE SET (units, next_unit, taken_unit, expires_at) = (
          SELECT
            CASE WHEN ${room} THEN ${log.kept({ at: now, unit: nextUnit })} ELSE ${log.kept()} END,
            CASE WHEN ${room} THEN ${nextUnit} + 1 ELSE ${nextUnit} END,
            CASE WHEN ${room} THEN ${nextUnit} ELSE 0 END,
            CASE WHEN ${room} THEN ${log.greatest(sql`rate_limits.expires_at`, expiresAt)} ELSE rate_limits.expires_at END
          FROM ${log.elements(current)}
          WHERE ${log.at} > ${now - windowMs}
        )
        RETURNING units, taken_unit`.execute(db);
      const row = rows[0];
      if (row === undefined) throw new Error("rate limiter upsert returned no row");
      const units = (JSON.parse(row.units) as [number, number][]).map(([at, unit]): LoggedUnit => ({ at, unit }));
      const takenUnit = fromDbBigint(row.taken_unit);
      if (takenUnit === 0) return { allowed: false, count: units.length, retryAt: slidingLogRetryAt(units, limit, windowMs) };
      return { allowed: true, count: units.length, receipt: { key, at: now, unit: takenUnit } };
    },

    async refund({ key, at, unit }) {
      const isTheUnit = sql`${log.at} = ${at} AND ${log.unit} = ${unit}`;
      const { rows } = await sql`
        UPDATE rate_limits
        SET units = (SELECT ${log.kept()} FROM ${log.elements(current)} WHERE NOT (${isTheUnit}))
        WHERE key = ${key} AND EXISTS (SELECT 1 FROM ${log.elements(current)} WHERE ${isTheUnit})
        RETURNING key`.execute(db);
      return rows.length > 0;
    },
  };
}
