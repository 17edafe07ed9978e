/**
 * A PostgreSQL database created for one bench figure and dropped after it, on the server that `BENCH_POSTGRES_URL`
 * names (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import pg from "pg";
import { firstLine } from "./stats.ts";

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Rejected with this when there is no PostgreSQL server to reach, so that a figure can say so instead of failing. */
export class PostgresUnavailable extends Error {}

let created = 0;

/** Creates `<prefix>_<pid>_<time>_<n>`; `drop` closes whatever is still connected to it and never rejects. */
export async function createScratchDatabase(prefix: string): Promise<{ readonly url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  await admin.connect().catch((error: unknown) => {
    const where = BENCH_POSTGRES_URL.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");
    throw new PostgresUnavailable(`PostgreSQL at ${where} unreachable (${firstLine(error)})`, { cause: error });
  });
  const name = `${prefix}_${process.pid}_${Date.now()}_${created++}`;
  await admin.query(`CREATE DATABASE ${name}`).catch(async (error: unknown) => {
    await admin.end();
    throw error;
  });
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  };
  return { url: Object.assign(new URL(BENCH_POSTGRES_URL), { pathname: `/${name}` }).toString(), drop };
}

/** Runs `use` on a scratch database, dropped after; answers why not when no PostgreSQL server is reachable. */
export async function onScratchDatabase<T>(prefix: string, use: (url: string) => Promise<T>): Promise<{ value: T } | { skipped: string }> {
  const scratch = await createScratchDatabase(prefix).catch((error: unknown) => {
    if (error instanceof PostgresUnavailable) return error;
    throw error;
  });
  if (scratch instanceof PostgresUnavailable) return { skipped: scratch.message };
  try {
    return { value: await use(scratch.url) };
  } finally {
    await scratch.drop();
  }
}
