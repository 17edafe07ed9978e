import { sql } from "kysely";
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BegunStatement } from "../src/begun-statement.ts";
import { openPostgresStores } from "../src/index.ts";
import { databaseUnderTest, type FreshSchema } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

/** Runs a BegunStatement on `client` and settles with its result or its error. */
function runBegun(client: pg.PoolClient, begin: string, statement: { name: string; text: string; values: unknown[] }): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const begun = new BegunStatement(begin, statement);
    begun.callback = (error, result) => (error === null ? resolve(result!) : reject(error));
    client.query(begun);
  });
}

describe.skipIf(database.kind !== "postgres")("a transaction's BEGIN rides with its first statement (PostgreSQL)", () => {
  let schema: FreshSchema;

  beforeEach(async () => {
    schema = await database.freshSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  /** Counts the round trips of `pool`'s one connection: each ends with ReadyForQuery. */
  async function countRoundTrips(pool: pg.Pool): Promise<() => number> {
    const client = await pool.connect();
    let count = 0;
    (client as unknown as { connection: { on(event: "readyForQuery", listener: () => void): void } }).connection.on("readyForQuery", () => count++);
    client.release();
    return () => count;
  }

  it("saves a unit of work one round trip once its first statement is parsed on the connection, with the same answers", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    await stores.orgs.create({ id: "o", name: "O", createdAt: 1 });
    const roundTrips = await countRoundTrips(pool);
    const unitOfWork = () => stores.transaction((tx) => tx.orgs.findById("o"));

    expect(await unitOfWork()).toMatchObject({ id: "o", name: "O" });
    const first = roundTrips();
    expect(await unitOfWork()).toMatchObject({ id: "o", name: "O" });
    const second = roundTrips() - first;

    // The first run parses the select, so its BEGIN goes alone: begin, select, commit.
    expect([first, second]).toEqual([3, 2]);
  });

  it("runs the statement inside the transaction: a rollback undoes it", async () => {
    const client = await schema.pool(1).connect();
    try {
      await client.query("create table t (id int primary key)");
      const insert = { name: "insert_t", text: "insert into t values ($1)", values: [1] };
      await client.query(insert);
      await runBegun(client, "begin", { ...insert, values: [2] });
      expect(client.getTransactionStatus()).toBe("T");
      await client.query("rollback");
      expect((await client.query("select id from t order by id")).rows).toEqual([{ id: 1 }]);
    } finally {
      client.release();
    }
  });

  it("never runs the statement when its BEGIN fails, and leaves the connection's named statements usable", async () => {
    const client = await schema.pool(1).connect();
    try {
      await client.query("create table t (id int primary key)");
      const insert = { name: "insert_t", text: "insert into t values ($1)", values: [1] };
      await client.query(insert);
      await expect(runBegun(client, "begin isolation level nonsense", { ...insert, values: [2] })).rejects.toMatchObject({ code: "42601" });
      expect(client.getTransactionStatus()).toBe("I");
      await client.query({ ...insert, values: [3] });
      expect((await client.query("select id from t order by id")).rows).toEqual([{ id: 1 }, { id: 3 }]);
    } finally {
      client.release();
    }
  });

  it("rolls the unit of work back when the first statement fails, and the next unit of work rides again", async () => {
    const pool = schema.pool(1);
    const { db } = await openPostgresStores({ pool });
    const divide = (by: number) => db.transaction().execute((trx) => sql<{ q: number }>`select 6 / ${by}::int as q`.execute(trx));
    expect((await divide(2)).rows).toEqual([{ q: 3 }]);
    const roundTrips = await countRoundTrips(pool);
    await expect(divide(0)).rejects.toMatchObject({ code: "22012" });
    const failed = roundTrips();
    expect((await divide(3)).rows).toEqual([{ q: 2 }]);
    // The failed one: begin with the select, then rollback; the next: begin with the select, then commit.
    expect([failed, roundTrips() - failed]).toEqual([2, 2]);
  });
});
