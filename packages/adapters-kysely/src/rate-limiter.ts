import type { EpochMs, RateLimitDecision, RateLimiter, RateLimitRequest } from "@gatehouse/core";
import { checkRateLimitRequests, slidingLogRetryAt, type LoggedUnit } from "@gatehouse/core/store-kit";
import { sql, type Kysely } from "kysely";
import { fromDbBigint, unitLogSql, type DbBigint, type SqlDialect } from "./dialect-differences.ts";
import type { Database } from "./schema.ts";

interface ConsumedRow {
  readonly key: string;
  readonly units: string;
  readonly taken_unit: DbBigint;
}

/**
 * The sliding log: one row per key holding the units taken in the window (see `RateLimiter`).
 * Each call is one statement. Consuming is an upsert of every requested key at once, whose update
 * recomputes each log from the conflicting row itself (PostgreSQL locks that row first, so concurrent
 * callers on several connections queue on it and each sees the previous one's result; SQLite serialises
 * writers), and records in `taken_unit` whether it took a unit, because RETURNING shows only the new row.
 * A unit taken moves the expiry to at least the one the insert proposed (`excluded`: `now + windowMs`).
 * `consume` is the one-key case of the same statement.
 */
export function createRateLimiter(db: Kysely<Database>, dialect: SqlDialect): RateLimiter {
  const log = unitLogSql(dialect);
  const current = sql`rate_limits.units`;
  const nextUnit = sql`rate_limits.next_unit`;

  const consumeMany = async (requests: readonly RateLimitRequest[], now: EpochMs): Promise<RateLimitDecision[]> => {
    checkRateLimitRequests(requests);
    if (requests.length === 0) return [];
    // PostgreSQL inserts (and locks) VALUES rows in their order: in key order, two calls over the same keys never deadlock.
    const sorted = requests.toSorted((a, b) => (a.key < b.key ? -1 : 1));
    /**
     * A number of the conflicting row's own request (its limit, its window's start), looked up by its key:
     * a CASE needs no list of the requests joined in, and one key (`consume`, on every public RPC) needs
     * not even the CASE. The casts: PostgreSQL would type a CASE of bare parameters as text.
     */
    const perKey = (numberOf: (request: RateLimitRequest) => number) =>
      sorted.length === 1
        ? sql`${numberOf(sorted[0]!)}`
        : sql`CASE rate_limits.key ${sql.join(
            sorted.map((request) => sql`WHEN ${request.key} THEN CAST(${numberOf(request)} AS bigint)`),
            sql` `,
          )} END`;
    const room = sql`count(*) < ${perKey((request) => request.limit)}`;
    const rows = sorted.map(({ key, windowMs }) => sql`(${key}, ${JSON.stringify([[now, 1]])}, 2, 1, ${now + windowMs})`);
    const { rows: consumed } = await sql<ConsumedRow>`
      INSERT INTO rate_limits (key, units, next_unit, taken_unit, expires_at)
      VALUES ${sql.join(rows)}
      ON CONFLICT (key) DO UPDATE SET (units, next_unit, taken_unit, expires_at) = (
        SELECT
          CASE WHEN ${room} THEN ${log.kept({ at: now, unit: nextUnit })} ELSE ${log.kept()} END,
          CASE WHEN ${room} THEN ${nextUnit} + 1 ELSE ${nextUnit} END,
          CASE WHEN ${room} THEN ${nextUnit} ELSE 0 END,
          CASE WHEN ${room} THEN ${log.greatest(sql`rate_limits.expires_at`, sql`excluded.expires_at`)} ELSE rate_limits.expires_at END
        FROM ${log.elements(current)}
        WHERE ${log.at} > ${perKey((request) => now - request.windowMs)}
      )
      RETURNING key, units, taken_unit`.execute(db);
    const byKey = new Map(consumed.map((row) => [row.key, row]));
    return requests.map((request) => {
      const row = byKey.get(request.key);
      if (row === undefined) throw new Error("rate limiter upsert returned no row for a key");
      return decisionOf(row, request, now);
    });
  };

  return {
    async consume(key, limit, windowMs, now) {
      const [decision] = await consumeMany([{ key, limit, windowMs }], now);
      if (decision === undefined) throw new Error("rate limiter upsert returned no decision");
      return decision;
    },

    consumeMany,

    async refund({ key, at, unit }) {
      const isTheUnit = sql`${log.at} = ${at} AND ${log.unit} = ${unit}`;
      await sql`UPDATE rate_limits
        SET units = (SELECT ${log.kept()} FROM ${log.elements(current)} WHERE NOT (${isTheUnit}))
        WHERE key = ${key} AND EXISTS (SELECT 1 FROM ${log.elements(current)} WHERE ${isTheUnit})`.execute(db);
    },
  };
}

/** A row the upsert returned: the log as the call left it, and the unit it took (0: none). */
function decisionOf(row: ConsumedRow, { key, limit, windowMs }: RateLimitRequest, now: EpochMs): RateLimitDecision {
  const units = (JSON.parse(row.units) as [number, number][]).map(([at, unit]): LoggedUnit => ({ at, unit }));
  const takenUnit = fromDbBigint(row.taken_unit);
  if (takenUnit === 0) return { allowed: false, count: units.length, retryAt: slidingLogRetryAt(units, limit, windowMs) };
  return { allowed: true, count: units.length, receipt: { key, at: now, unit: takenUnit } };
}
