/**
 * A PostgreSQL database created for one bench run and dropped after it, on the server that
 * `BENCH_POSTGRES_URL` names (default postgres://postgres@127.0.0.1:5432/postgres). The pg driver is
 * loaded only here, as the server loads its PostgreSQL adapter only when selected.
 */
import type * as Pg from "pg";

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface ScratchDatabase {
  /** The new database's connection string. */
  readonly url: string;
  /** Drops it (closing whatever is still connected) and ends the admin connection; never rejects. */
  drop(): Promise<void>;
}

/** Rejected with this when there is no PostgreSQL to use (no driver, no server), so that a caller can skip it and say why. */
export class PostgresUnavailable extends Error {}

let created = 0;

/** Creates `<prefix>_<pid>_<time>_<n>`; a failure once connected (no CREATEDB right, say) rejects as it is. */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  let Client: typeof Pg.Client;
  try {
    Client = (await import("pg")).default.Client;
  } catch (error) {
    throw new PostgresUnavailable(`the pg driver is not installed (${firstLine(error)})`, { cause: error });
  }
  const admin = new Client({ connectionString: BENCH_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new PostgresUnavailable(`PostgreSQL at ${redact(BENCH_POSTGRES_URL)} unreachable (${firstLine(error)})`, { cause: error });
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

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");
}
