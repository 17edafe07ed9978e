import { Kysely, sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PipelinedReadsDialect } from "../src/pipelined-reads.ts";
import { databaseUnderTest, PG_URL } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

async function read<Row>(db: Kysely<unknown>, query: ReturnType<typeof sql<Row>>): Promise<Row[]> {
  return (await query.execute(db)).rows;
}

describe.skipIf(database.kind !== "postgres")("pipelined reads on PostgreSQL", () => {
  let db: Kysely<unknown> | undefined;
  const open = (config: pg.ClientConfig = { connectionString: PG_URL }) => (db = new Kysely<unknown>({ dialect: new PipelinedReadsDialect(config, true) }));

  afterEach(async () => {
    await db?.destroy();
    db = undefined;
  });

  it("reads issued in one turn share one backend and each gets its own answer", async () => {
    const reads = open();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => read(reads, sql<{ n: number; pid: number }>`select ${n}::int as n, pg_backend_pid() as pid`)),
    );
    expect(answers.map(([row]) => row?.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(new Set(answers.map(([row]) => row?.pid)).size).toBe(1);
  });

  it("a read that fails, fails alone: those before and after it are answered", async () => {
    const reads = open();
    const [before, failed, after] = await Promise.allSettled([
      read(reads, sql<{ v: number }>`select ${1}::int as v`),
      read(reads, sql<{ v: number }>`select 1 / ${0}::int as v`),
      read(reads, sql<{ v: number }>`select ${3}::int as v`),
    ]);
    expect(before).toEqual({ status: "fulfilled", value: [{ v: 1 }] });
    expect(failed).toMatchObject({ status: "rejected", reason: { code: "22012" } });
    expect(after).toEqual({ status: "fulfilled", value: [{ v: 3 }] });
  });

  it("a lost connection fails the read on it, and the next read opens a new one", async () => {
    const reads = open({ connectionString: PG_URL, application_name: "gh_pipelined_lost" });
    const [{ pid } = { pid: 0 }] = await read(reads, sql<{ pid: number }>`select pg_backend_pid() as pid`);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      const inFlight = expect(read(reads, sql`select pg_sleep(${30})`)).rejects.toMatchObject({ code: "57P01" });
      // Waits for the sleep itself to run, then ends its backend.
      while ((await admin.query("select 1 from pg_stat_activity where pid = $1 and query like 'select pg_sleep%'", [pid])).rows.length === 0);
      await admin.query("select pg_terminate_backend($1)", [pid]);
      await inFlight;
      const [{ pid: next } = { pid }] = await read(reads, sql<{ pid: number }>`select pg_backend_pid() as pid`);
      expect(next).not.toBe(pid);
    } finally {
      await admin.end();
    }
  });

  it("a server that is not there fails the read, and a later read tries again", async () => {
    const reads = open({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    await expect(read(reads, sql`select 1`)).rejects.toThrow();
    await expect(read(reads, sql`select 1`)).rejects.toThrow();
  });
});
