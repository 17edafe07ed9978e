/**
 * A PostgreSQL database created for one bench figure and dropped after it, on the server that `BENCH_POSTGRES_URL`
 * names (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import pg from "pg";
import { firstLine } from "./stats.ts";

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

let created = 0;

/**
 * Runs `use` on a database `<prefix>_<pid>_<time>_<n>`, created for it and dropped after it with whatever is still
 * connected to it; answers why not when no PostgreSQL server is reachable, so that a figure can say so instead of failing.
 */
export async function onScratchDatabase<T>(prefix: string, use: (url: string) => Promise<T>): Promise<{ value: T } | { skipped: string }> {
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    const where = BENCH_POSTGRES_URL.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");
    return { skipped: `PostgreSQL at ${where} unreachable (${firstLine(error)})` };
  }
  const name = `${prefix}_${process.pid}_${Date.now()}_${created++}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    return { value: await use(Object.assign(new URL(BENCH_POSTGRES_URL), { pathname: `/${name}` }).toString()) };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
}
