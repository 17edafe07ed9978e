/**
 * Where the PostgreSQL tests run. A reachable server (`PG_URL`, default the local one) gives every
 * `freshSchema()` its own `gh_<random>` schema, reached through pools whose connections set
 * `search_path` to it, and dropped afterwards: test files, runs and developers never see each
 * other's rows. Without a server the same tests run on an in-process PGlite, said out loud; in CI
 * a missing server is an error, because CI must prove the real thing.
 */
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { openPostgresStores, type PostgresStores, type PostgresStoresOptions } from "../../src/index.ts";

export const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** Enough that the contract's concurrent calls really run on separate connections. */
export const POOL_SIZE = 12;
const PROBE_TIMEOUT_MS = 2_000;

export interface FreshSchema {
  /** The schema's name. */
  readonly schema: string;
  /** Opens Gatehouse on the schema as one replica would: its own pool of `POOL_SIZE` connections. */
  open(options?: OpenOptions): Promise<PostgresStores>;
  /** A raw pool on the schema, for assertions; ended by `drop()`. Real PostgreSQL only. */
  pool(max?: number): pg.Pool;
  /** Closes every instance and pool opened here and drops the schema. */
  drop(): Promise<void>;
}

export type OpenOptions = Pick<PostgresStoresOptions, "onQuery" | "hashDeviceFingerprint">;

export interface DatabaseUnderTest {
  readonly kind: "postgres" | "pglite";
  freshSchema(): Promise<FreshSchema>;
}

async function probe(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

async function onAdminConnection(run: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

function realPostgres(): DatabaseUnderTest {
  return {
    kind: "postgres",
    async freshSchema() {
      const schema = `gh_${randomBytes(6).toString("hex")}`;
      await onAdminConnection((client) => client.query(`create schema ${schema}`).then(() => {}));
      const pools: pg.Pool[] = [];
      const instances: PostgresStores[] = [];
      const pool = (max = POOL_SIZE) => {
        const created = new pg.Pool({ connectionString: PG_URL, max, options: `-c search_path=${schema}` });
        created.on("error", () => {});
        pools.push(created);
        return created;
      };
      return {
        schema,
        pool,
        async open(options = {}) {
          // As the server opens it: from a connection string, so the pool is Gatehouse's own.
          const url = new URL(PG_URL);
          url.searchParams.set("options", `-c search_path=${schema}`);
          const opened = await openPostgresStores({ connectionString: url.toString(), max: POOL_SIZE, ...options });
          instances.push(opened);
          return opened;
        },
        async drop() {
          await Promise.all(instances.map((instance) => instance.close()));
          await Promise.all(pools.map((each) => each.end()));
          await onAdminConnection((client) => client.query(`drop schema ${schema} cascade`).then(() => {}));
        },
      };
    },
  };
}

/**
 * One PGlite per test file (starting one takes over a second) with a schema per `freshSchema()`.
 * PGlite is a single session, so the schema is switched with a session-wide `set search_path`:
 * sound only because the tests of a file run one after another.
 */
function pglite(): DatabaseUnderTest {
  const instance = new PGlite();
  return {
    kind: "pglite",
    async freshSchema() {
      const schema = `gh_${randomBytes(6).toString("hex")}`;
      await instance.exec(`create schema ${schema}; set search_path to ${schema}`);
      return {
        schema,
        pool: () => {
          throw new Error("PGlite has no connection pool");
        },
        open: (options = {}) => openPostgresStores({ pglite: instance, ...options }),
        async drop() {
          // The instances opened here own nothing (the PGlite is shared), so there is nothing to close.
          await instance.exec(`set search_path to public; drop schema ${schema} cascade`);
        },
      };
    },
  };
}

export async function databaseUnderTest(): Promise<DatabaseUnderTest> {
  const unreachable = await probe(PG_URL);
  if (unreachable === null) return realPostgres();
  const where = PG_URL.replace(/\/\/[^@/]*@/, "//");
  if (process.env.CI) throw new Error(`PostgreSQL not reachable at ${where} (${unreachable}): CI must run the suite on a real server (set PG_URL)`);
  console.warn(`PostgreSQL not reachable at ${where} (${unreachable}): running the contract suite on PGlite`);
  return pglite();
}
