/**
 * Everything the SQLite and PostgreSQL dialects disagree on, in one place. The repositories issue
 * the same SQL on both and route values through these helpers; the migrations need nothing from
 * here because `text`, `integer`, `bigint` and `boolean` column types are valid in both.
 */
import { sql, type RawBuilder } from "kysely";

export type SqlDialect = "sqlite" | "postgres";

/** SQLite has no boolean type and better-sqlite3 refuses to bind JS booleans: 0/1 there, native booleans in PostgreSQL. */
export type DbBool = number | boolean;

/**
 * What a `bigint` (epoch ms) column reads back as: a number from better-sqlite3; a string from
 * node-postgres unless an int8 type parser is installed; a bigint from drivers that map int8 so.
 */
export type DbBigint = number | string | bigint;

export function toDbBool(dialect: SqlDialect, value: boolean): DbBool {
  if (dialect === "postgres") return value;
  return value ? 1 : 0;
}

export function fromDbBool(value: DbBool): boolean {
  return value === true || value === 1;
}

export function fromDbBigint(value: DbBigint): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError(`database integer ${String(value)} is not a safe JS integer`);
  return number;
}

export function fromDbBigintOrNull(value: DbBigint | null): number | null {
  return value === null ? null : fromDbBigint(value);
}

/** Unique or primary-key violation: better-sqlite3 reports SQLite extended codes, PostgreSQL drivers (pg, PGlite) SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const { code } = error;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

/**
 * The JSON vocabulary of the rate limiter's sliding log: a text column holding a JSON array of
 * `[at, unit]` pairs. SQLite reads it with `json_each`, PostgreSQL with `jsonb_array_elements`;
 * both name the element `value`, so `at`, `unit` and `kept` apply inside a query over `elements`.
 */
export interface UnitLogSql {
  /** A FROM source yielding one row per pair of the log `column`, its element named `value`. */
  elements(column: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The pair's timestamp, as an integer. */
  readonly at: RawBuilder<number>;
  /** The pair's unit number, as an integer. */
  readonly unit: RawBuilder<number>;
  /** Aggregate: the selected pairs as JSON text, plus `[appendAt, appendUnit]` when given. */
  kept(append?: { readonly at: number; readonly unit: RawBuilder<unknown> }): RawBuilder<string>;
  /** The larger of two integers. */
  greatest(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number>;
}

export function unitLogSql(dialect: SqlDialect): UnitLogSql {
  if (dialect === "postgres") {
    const kept = sql`coalesce(jsonb_agg(value), '[]'::jsonb)`;
    return {
      elements: (column) => sql`jsonb_array_elements(${column}::jsonb) AS log(value)`,
      at: sql<number>`(value ->> 0)::bigint`,
      unit: sql<number>`(value ->> 1)::bigint`,
      kept: (append) =>
        append === undefined
          ? sql<string>`${kept}::text`
          : sql<string>`(${kept} || jsonb_build_array(jsonb_build_array(CAST(${append.at} AS bigint), ${append.unit})))::text`,
      greatest: (a, b) => sql<number>`greatest(${a}, ${b})`,
    };
  }
  const kept = sql`json_group_array(json(value))`;
  return {
    elements: (column) => sql`json_each(${column})`,
    at: sql<number>`(value ->> 0)`,
    unit: sql<number>`(value ->> 1)`,
    kept: (append) => (append === undefined ? sql<string>`${kept}` : sql<string>`json_insert(${kept}, '$[#]', json_array(${append.at}, ${append.unit}))`),
    greatest: (a, b) => sql<number>`max(${a}, ${b})`,
  };
}
