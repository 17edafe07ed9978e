/**
 * A PostgreSQL database created for one bench figure and dropped after it, on the server that `BENCH_POSTGRES_URL`
 * names (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import pg from "pg";

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Rejected with this when there is no PostgreSQL server to reach, so that a figure can say so instead of failing. */
export class PostgresUnavailable extends Error {}

let created = 0;

/** Creates `<prefix>_<pid>_<time>_<n>`; `drop` closes whatever is still connected to it and never rejects. */
export async function createScratchDatabase(prefix: string): Promise<{ readonly url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
    throw new PostgresUnavailable(`PostgreSQL at ${BENCH_POSTGRES_URL.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@")} unreachable (${reason})`, {
      cause: error,
    });
  }
  const name = `${prefix}_${process.pid}_${Date.now()}_${created++}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    await admin.end();
    throw error;
  }
  return {
    url: Object.assign(new URL(BENCH_POSTGRES_URL), { pathname: `/${name}` }).toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    },
  };
}

/** Runs `use` on a scratch database, dropped after; answers why not when no PostgreSQL server is reachable. */
export async function onScratchDatabase<T>(prefix: string, use: (url: string) => Promise<T>): Promise<{ value: T } | { skipped: string }> {
  let scratch;
  try {
    scratch = await createScratchDatabase(prefix);
  } catch (error) {
    if (error instanceof PostgresUnavailable) return { skipped: error.message };
    throw error;
  }
  try {
    return { value: await use(scratch.url) };
  } finally {
    await scratch.drop();
  }
}
