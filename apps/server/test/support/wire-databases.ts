import { randomBytes } from "node:crypto";
import { onPostgres, PG_URL, requirePostgresInCi } from "./postgres.ts";
import { tempSqliteDatabase } from "./server-process.ts";

/** A fresh database for one `gatehouse serve` under test, and how to drop it. */
export interface WireDatabase {
  readonly url: string;
  dispose(): Promise<void>;
}

function sqliteDatabase(): WireDatabase {
  const db = tempSqliteDatabase();
  return { url: db.databaseUrl, dispose: async () => db.dispose() };
}

/**
 * A schema of its own on the shared server, selected through search_path. (Not a database of its
 * own: DROP DATABASE waits for a checkpoint, which takes minutes while other suites write hard.)
 */
async function postgresDatabase(prefix: string): Promise<WireDatabase> {
  const schema = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = async (statement: string) => void (await onPostgres((client) => client.query(statement)));
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { url: url.toString(), dispose: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}

/**
 * The dialects a wire test runs on, for `describe.each`: [name, open a fresh database, enabled].
 * PostgreSQL is disabled only outside CI when no server answers, with `what` printed as the skipped test.
 */
export async function wireDialects(what: string, schemaPrefix: string): Promise<[string, () => Promise<WireDatabase>, boolean][]> {
  const pgAvailable = (await requirePostgresInCi(what)) === null;
  return [
    ["SQLite", async () => sqliteDatabase(), true],
    ["PostgreSQL", () => postgresDatabase(schemaPrefix), pgAvailable],
  ];
}
