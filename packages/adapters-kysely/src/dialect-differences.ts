/**
 * Everything the SQLite and PostgreSQL dialects disagree on, in one place. The repositories issue
 * the same SQL on both and route values through these helpers; the migrations need nothing from
 * here because `text`, `integer`, `bigint` and `boolean` column types are valid in both.
 */
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

/** Unique or primary-key violation: better-sqlite3 reports SQLite extended codes, PostgreSQL drivers (pg, PGlite) SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const { code } = error;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}
