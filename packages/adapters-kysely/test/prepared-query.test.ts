import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { preparedInsert } from "../src/prepared-insert.ts";
import { createPreparedQueryCache, preparedQuery, preparedStatement } from "../src/prepared-query.ts";
import type { Database } from "../src/schema.ts";

describe("preparedQuery", () => {
  let db: Kysely<Database>;

  beforeEach(async () => {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(":memory:") }) });
    await sql`CREATE TABLE memberships (org_id TEXT, user_id TEXT, role TEXT)`.execute(db);
    await db
      .insertInto("memberships")
      .values([
        { org_id: "o1", user_id: "u1", role: "admin" },
        { org_id: "o1", user_id: "u2", role: "member" },
        { org_id: "o2", user_id: "u1", role: "member" },
      ])
      .execute();
  });

  afterEach(() => db.destroy());

  it("runs with each call's arguments wherever they sit among the query's own constants", async () => {
    // The arguments are used in the opposite order to their declaration, around a constant.
    const select = preparedQuery(db, createPreparedQueryCache(), "roles", 2, (userId: string, orgId: string) =>
      db.selectFrom("memberships").select("role").where("org_id", "=", orgId).where("role", "!=", "member").where("user_id", "=", userId),
    );
    expect(await select("u1", "o1")).toEqual([{ role: "admin" }]);
    expect(await select("u1", "o2")).toEqual([]);
    expect(await select("u2", "o1")).toEqual([]);
    await db.insertInto("memberships").values({ org_id: "o2", user_id: "u2", role: "admin" }).execute();
    expect(await select("u2", "o2")).toEqual([{ role: "admin" }]);
  });

  it("compiles once per cache and name, and runs on the executor each call site passes (a transaction's)", async () => {
    const cache = createPreparedQueryCache();
    let builds = 0;
    const build = (orgId: string) => {
      builds++;
      return db.selectFrom("memberships").select("user_id").where("org_id", "=", orgId).orderBy("user_id");
    };
    expect(await preparedQuery(db, cache, "members", 1, build)("o1")).toEqual([{ user_id: "u1" }, { user_id: "u2" }]);
    const inTransaction = await db.transaction().execute(async (trx) => {
      await trx.insertInto("memberships").values({ org_id: "o1", user_id: "u3", role: "member" }).execute();
      return preparedQuery(trx, cache, "members", 1, build)("o1");
    });
    expect(inTransaction).toEqual([{ user_id: "u1" }, { user_id: "u2" }, { user_id: "u3" }]);
    expect(builds).toBe(1);
  });

  it("refuses a build that does not turn every argument into a parameter", () => {
    // This build looks at userId instead of handing it to kysely, so no call could ever bind it.
    expect(() =>
      preparedQuery(db, createPreparedQueryCache(), "membership", 2, (orgId: string, userId: string) =>
        db
          .selectFrom("memberships")
          .selectAll()
          .where("org_id", "=", userId === orgId ? orgId : orgId),
      ),
    ).toThrow(/argument 1\) did not become a query parameter/);
  });
});

describe("preparedStatement and preparedInsert", () => {
  let db: Kysely<Database>;

  beforeEach(async () => {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(":memory:") }) });
    await sql`CREATE TABLE memberships (org_id TEXT, user_id TEXT, role TEXT, PRIMARY KEY (org_id, user_id))`.execute(db);
  });

  afterEach(() => db.destroy());

  it("answers a write's affected rows", async () => {
    const cache = createPreparedQueryCache();
    const insert = preparedInsert(db, cache, "memberships", ["org_id", "user_id", "role"]);
    await insert([{ org_id: "o1", user_id: "u1", role: "member" }]);
    const promote = preparedStatement(db, cache, "promote", 1, (userId: string) =>
      db.updateTable("memberships").set({ role: "admin" }).where("user_id", "=", userId),
    );
    expect((await promote("u1")).numAffectedRows).toBe(1n);
    expect((await promote("nobody")).numAffectedRows).toBe(0n);
  });

  it("inserts any number of rows, one statement per count, and reports a taken key as already_exists", async () => {
    const insert = preparedInsert(db, createPreparedQueryCache(), "memberships", ["org_id", "user_id", "role"]);
    await insert([
      { org_id: "o1", user_id: "u1", role: "member" },
      { org_id: "o1", user_id: "u2", role: "admin" },
    ]);
    await insert([{ org_id: "o2", user_id: "u1", role: "admin" }]);
    await insert([
      { org_id: "o1", user_id: "u3", role: "member" },
      { org_id: "o1", user_id: "u4", role: "member" },
    ]);
    await expect(insert([{ org_id: "o1", user_id: "u2", role: "member" }])).rejects.toMatchObject({ kind: "already_exists" });
    const rows = await db.selectFrom("memberships").selectAll().orderBy("org_id").orderBy("user_id").execute();
    expect(rows).toEqual([
      { org_id: "o1", user_id: "u1", role: "member" },
      { org_id: "o1", user_id: "u2", role: "admin" },
      { org_id: "o1", user_id: "u3", role: "member" },
      { org_id: "o1", user_id: "u4", role: "member" },
      { org_id: "o2", user_id: "u1", role: "admin" },
    ]);
  });
});
