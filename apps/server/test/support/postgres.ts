/**
 * The PostgreSQL the server suites run against. `.ci/run` sets PG_URL; a local run falls back to the
 * machine's server. Each suite that needs it fails in CI when it is unreachable and otherwise skips
 * with the printed reason.
 */
import pg from "pg";

export const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Runs `run` on a connection of its own to `url`, closed afterwards. */
export async function onPostgres<T>(run: (client: pg.Client) => Promise<T>, url = PG_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why PostgreSQL at `url` cannot be reached, or null when it can. */
export async function postgresUnreachableReason(url = PG_URL): Promise<string | null> {
  try {
    await onPostgres(async () => undefined, url);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  }
}

/**
 * null when PostgreSQL is reachable. Otherwise throws in CI (where `what` must run) and prints why
 * it is skipped elsewhere, never silently.
 */
export async function requirePostgresInCi(what: string): Promise<string | null> {
  const reason = await postgresUnreachableReason();
  if (reason === null) return null;
  const where = PG_URL.replace(/\/\/[^@/]*@/, "//");
  if (process.env.CI) throw new Error(`PostgreSQL not reachable at ${where} (${reason}): CI must run ${what}`);
  console.warn(`PostgreSQL not reachable at ${where} (${reason}): skipping ${what}`);
  return reason;
}
