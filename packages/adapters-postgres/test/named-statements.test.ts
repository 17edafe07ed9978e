import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPostgresStores } from "../src/index.ts";
import { databaseUnderTest, type FreshSchema } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

/** The named statements of the pool's one connection. */
async function namedStatements(pool: { query: (text: string) => Promise<{ rows: { name: string; statement: string }[] }> }): Promise<string[]> {
  const { rows } = await pool.query("select name, statement from pg_prepared_statements order by statement");
  return rows.map(
    (row) => `${row.name.startsWith("gatehouse_") ? "gatehouse_…" : row.name}: ${row.statement.split(" from ")[1]?.split(" ")[0] ?? row.statement}`,
  );
}

describe.skipIf(database.kind !== "postgres")("named statements on PostgreSQL", () => {
  let schema: FreshSchema;

  beforeEach(async () => {
    schema = await database.freshSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  async function openOnOneConnection(preparedStatements?: boolean) {
    const pool = schema.pool(1);
    const opened = await openPostgresStores(preparedStatements === undefined ? { pool } : { pool, preparedStatements });
    await opened.stores.orgs.create({ id: "o", name: "O", createdAt: 1 });
    await opened.stores.users.create({
      id: "u",
      email: "u@example.com",
      displayName: "U",
      passwordHash: "h",
      phone: null,
      phoneVerified: false,
      platformAdmin: false,
      emailVerifiedAt: 1,
      createdAt: 1,
    });
    await opened.stores.orgs.putMembership({ orgId: "o", userId: "u", role: "member" });
    return { pool, ...opened };
  }

  it("sends every statement with parameters as a named statement, parsed once per connection", async () => {
    const { pool, stores } = await openOnOneConnection();
    const before = (await namedStatements(pool)).length;
    for (let i = 0; i < 3; i++) {
      expect(await stores.orgs.findMembership("o", "u")).toEqual({ orgId: "o", userId: "u", role: "member" });
      expect(await stores.browserPolicies.membershipAndVersion("o", "u")).toEqual({ membership: { orgId: "o", userId: "u", role: "member" }, version: null });
      expect(await stores.sessions.findActiveByAccessTokenHash("nope", 1)).toBeNull();
      expect(await stores.users.findByEmail("u@example.com")).toMatchObject({ id: "u" });
    }
    const named = await namedStatements(pool);
    // The set-up's writes (org, user, membership) were named too; the reads add one statement each, once.
    expect(named.length).toBe(before + 4);
    expect(named).toEqual(
      expect.arrayContaining(["gatehouse_…: memberships", 'gatehouse_…: "memberships"', 'gatehouse_…: "sessions"', 'gatehouse_…: "users"']),
    );
    expect(named.some((statement) => statement.startsWith('gatehouse_…: insert into "users"'))).toBe(true);
  });

  it("sends none with preparedStatements: false (a pooler in transaction mode)", async () => {
    const { pool, stores } = await openOnOneConnection(false);
    expect(await stores.orgs.findMembership("o", "u")).toEqual({ orgId: "o", userId: "u", role: "member" });
    expect(await namedStatements(pool)).toEqual([]);
  });

  it("answers, unnamed, when a migration changed the columns under a named select * (a rolling upgrade)", async () => {
    const { pool, stores, db } = await openOnOneConnection();
    expect(await stores.orgs.findMembership("o", "u")).toEqual({ orgId: "o", userId: "u", role: "member" });
    await sql`alter table memberships add column added_by_a_newer_replica text`.execute(db);
    expect(await stores.orgs.findMembership("o", "u")).toEqual({ orgId: "o", userId: "u", role: "member" });
    expect(await stores.orgs.findMembership("o", "u")).toEqual({ orgId: "o", userId: "u", role: "member" });
    expect(pool.totalCount).toBe(1);
  });
});
