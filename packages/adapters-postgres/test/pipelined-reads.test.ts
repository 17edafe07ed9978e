import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { pipelinedReadPool, type PipelinedReadPool } from "../src/pipelined-reads.ts";
import { databaseUnderTest, PG_URL } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

/** The rows of one read through the pipelined connection. */
async function read<Row>(reads: PipelinedReadPool, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = await reads.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    client.release();
  }
}

describe.skipIf(database.kind !== "postgres")("pipelined reads on PostgreSQL", () => {
  let reads: PipelinedReadPool | undefined;

  afterEach(async () => {
    await reads?.end();
    reads = undefined;
  });

  it("reads issued in one turn share one backend and each gets its own answer", async () => {
    reads = pipelinedReadPool({ connectionString: PG_URL });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => read<{ n: number; pid: number }>(reads!, "select $1::int as n, pg_backend_pid() as pid", [n])),
    );
    expect(answers.map(([row]) => row!.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(new Set(answers.map(([row]) => row!.pid)).size).toBe(1);
  });

  it("a read that fails, fails alone: those before and after it in the pipeline are answered", async () => {
    reads = pipelinedReadPool({ connectionString: PG_URL });
    const settled = await Promise.allSettled([1, 0, 2].map((d) => read<{ q: number }>(reads!, "select 2 / $1::int as q", [d])));
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(settled[1]).toMatchObject({ status: "rejected", reason: { code: "22012" } });
    expect(settled[2]).toMatchObject({ status: "fulfilled", value: [{ q: 1 }] });
  });

  it("each read is its own transaction, and sees what another session committed before it", async () => {
    reads = pipelinedReadPool({ connectionString: PG_URL });
    const table = `pipelined_reads_${randomBytes(6).toString("hex")}`;
    const other = new pg.Client({ connectionString: PG_URL });
    await other.connect();
    try {
      await other.query(`create table ${table} (x int)`);
      const count = async () => (await read<{ n: number }>(reads!, `select count(*)::int as n from ${table}`))[0]!.n;
      expect(await count()).toBe(0);
      await other.query(`insert into ${table} values (1)`);
      expect(await count()).toBe(1);
      // Inside a transaction, a later statement would start after its transaction did.
      const both = await Promise.all(
        [1, 2].map(() => read<{ own: boolean }>(reads!, "select xact_start = statement_timestamp() as own from pg_stat_activity where pid = pg_backend_pid()")),
      );
      expect(both.map(([row]) => row!.own)).toEqual([true, true]);
    } finally {
      await other.query(`drop table if exists ${table}`);
      await other.end();
    }
  });

  it("a broken connection fails the reads on it, and the next read opens a new one", async () => {
    reads = pipelinedReadPool({ connectionString: PG_URL });
    const { pid } = (await read<{ pid: number }>(reads, "select pg_backend_pid() as pid"))[0]!;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      const inFlight = expect(read(reads, "select pg_sleep(5)")).rejects.toMatchObject({ code: "57P01" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await admin.query("select pg_terminate_backend($1)", [pid]);
      await inFlight;
      // At once, before the connection's end may have arrived: the FATAL answer alone retires the connection.
      const { pid: next } = (await read<{ pid: number }>(reads, "select pg_backend_pid() as pid"))[0]!;
      expect(next).not.toBe(pid);
    } finally {
      await admin.end();
    }
  });

  it("refuses reads once ended", async () => {
    reads = pipelinedReadPool({ connectionString: PG_URL });
    await read(reads, "select 1");
    await reads.end();
    await expect(read(reads, "select 1")).rejects.toThrow(/ended/);
  });

  it("a server that is not there fails the read, and a later read tries again", async () => {
    reads = pipelinedReadPool({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    await expect(read(reads, "select 1")).rejects.toThrow();
    await expect(read(reads, "select 1")).rejects.toThrow();
  });
});
