import { deviceFingerprintHash } from "@gatehouse/core";
import { describeStoreContract } from "@gatehouse/core/testing/suites";
import type { Database } from "@gatehouse/adapters-kysely";
import { sql, type Kysely } from "kysely";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATION_NAMES, migrationLockKeys, openPostgresStores } from "../src/index.ts";
import { databaseUnderTest, PG_URL, type FreshSchema } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

/**
 * The contract's cases share one schema, migrated by its first open, and each starts on emptied
 * tables: the state a fresh migrated schema has (the migrations seed no rows), without paying for
 * twenty migrations per case. The migrations themselves are proved on fresh schemas below.
 */
let contractSchema: Promise<FreshSchema> | undefined;
afterAll(async () => {
  await (await contractSchema)?.drop();
});

/** The schema's tables but kysely's own, read once: every case has the same ones. */
let contractTables: Promise<readonly string[]> | undefined;

async function tablesOf(db: Kysely<Database>): Promise<readonly string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_migration%'`.execute(db);
  if (rows.length === 0) throw new Error("the contract schema has no tables to empty");
  return rows.map((row) => row.name);
}

async function emptyTables(db: Kysely<Database>): Promise<void> {
  contractTables ??= tablesOf(db);
  const tables = await contractTables;
  // DELETE, not TRUNCATE: on a few rows it is milliseconds where TRUNCATE rewrites every table and
  // index. No table has a sequence to restart, and every foreign key cascades, so any order empties them.
  await db.transaction().execute(async (trx) => {
    for (const name of tables) await sql`delete from ${sql.table(name)}`.execute(trx);
  });
}

describeStoreContract(`postgres (${database.kind})`, async () => {
  contractSchema ??= database.freshSchema();
  const opened = await (await contractSchema).open();
  await emptyTables(opened.db);
  return {
    stores: opened.stores,
    purgeExpired: opened.purgeExpired,
    failSmsTraffic: async () => {
      await sql`alter table sms_traffic rename to sms_traffic_away`.execute(opened.db);
      return async () => void (await sql`alter table sms_traffic_away rename to sms_traffic`.execute(opened.db));
    },
    close: () => opened.close(),
  };
});

describe(`openPostgresStores (${database.kind})`, () => {
  let schema: FreshSchema;

  beforeEach(async () => {
    schema = await database.freshSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  it("migrates a fresh schema once; the next open finds it current", async () => {
    expect((await schema.open()).applied).toEqual(MIGRATION_NAMES);
    expect((await schema.open()).applied).toEqual([]);
  });

  it("applies the migrations exactly once when 4 replicas start together on a fresh schema", async () => {
    const replicas = await Promise.all(Array.from({ length: 4 }, () => schema.open()));
    expect(replicas.flatMap((replica) => replica.applied)).toEqual(MIGRATION_NAMES);
    const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(replicas[0]!.db);
    expect(recorded.rows).toEqual(MIGRATION_NAMES.map((name) => ({ name })));
    for (const replica of replicas) expect(await replica.stores.users.findById("nobody")).toBeNull();
  });

  it("round-trips epoch-ms timestamps past 2^31 and 2^32 as numbers", async () => {
    const { stores } = await schema.open();
    const createdAt = 2 ** 41 + 7;
    await stores.orgs.create({ id: "o", name: "O", createdAt });
    expect(await stores.orgs.findById("o")).toEqual({ id: "o", name: "O", createdAt });
  });

  it("0014_device_fingerprint_hashes hashes every stored fingerprint in place with the given key, and refuses to keep them without one", async () => {
    const hashDeviceFingerprint = deviceFingerprintHash(new Uint8Array(32).fill(9));
    const before = await schema.open();
    await before.stores.users.create({
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
    await before.stores.orgs.create({ id: "o", name: "O", createdAt: 1 });
    // Back to the 0013 schema, with devices an older server stored in clear: more than one batch of the update.
    await sql`DROP TABLE signing_keys`.execute(before.db);
    await sql`DROP TABLE resource_servers`.execute(before.db);
    await sql`ALTER TABLE platform_settings DROP COLUMN sms_refused_countries`.execute(before.db);
    for (const table of ["risk_sign_ins", "risk_feature_counts", "risk_events", "org_risk_policies"])
      await sql`DROP TABLE ${sql.table(table)}`.execute(before.db);
    await sql`DROP TABLE extension_sessions`.execute(before.db);
    await sql`ALTER TABLE org_mfa_settings DROP COLUMN require_browser_extension`.execute(before.db);
    await sql`DROP TABLE oidc_records`.execute(before.db);
    await sql`ALTER TABLE mfa_challenges DROP COLUMN phishing_resistant`.execute(before.db);
    await sql`ALTER TABLE org_mfa_settings DROP COLUMN extension_grace_minutes`.execute(before.db);
    await sql`ALTER TABLE org_mfa_settings DROP COLUMN access_jwt_audience`.execute(before.db);
    await sql`ALTER TABLE org_mfa_settings DROP COLUMN enforcement_reporting`.execute(before.db);
    await sql`DELETE FROM kysely_migration WHERE name IN ('0015_sms_refused_countries', '0016_access_tokens', '0019_oidc', '0020_risk_engine', '0021_access_jwt_audience', '0024_extension_grace', '0025_risk_owner_loop', '0027_extension_sessions', '0028_enforcement_reporting', '0029_risk_sign_in_features')`.execute(
      before.db,
    );
    await sql`DROP INDEX sessions_device`.execute(before.db);
    await sql`DROP INDEX retired_refresh_tokens_session`.execute(before.db);
    await sql`ALTER TABLE devices DROP COLUMN user_agent`.execute(before.db);
    await sql`ALTER TABLE devices DROP COLUMN last_address`.execute(before.db);
    await sql`ALTER TABLE devices RENAME COLUMN fingerprint_hash TO fingerprint`.execute(before.db);
    await sql`DELETE FROM kysely_migration WHERE name = '0014_device_fingerprint_hashes'`.execute(before.db);
    const ids = Array.from({ length: 501 }, (_, i) => i);
    await sql`INSERT INTO devices (id, user_id, org_id, fingerprint, trusted, trusted_until, created_at, last_seen_at, session_issued_at)
              VALUES ${sql.join(ids.map((i) => sql`(${`d-${i}`}, 'u', 'o', ${`secret-fingerprint-${i}`}, true, 9999999999999, 1, 1, 1)`))}`.execute(before.db);
    await before.close();

    await expect(schema.open()).rejects.toThrow(/fingerprints in clear/);
    const after = await schema.open({ hashDeviceFingerprint });
    expect(after.applied).toEqual([
      "0014_device_fingerprint_hashes",
      "0015_sms_refused_countries",
      "0016_access_tokens",
      "0019_oidc",
      "0020_risk_engine",
      "0021_access_jwt_audience",
      "0024_extension_grace",
      "0025_risk_owner_loop",
      "0027_extension_sessions",
      "0028_enforcement_reporting",
      "0029_risk_sign_in_features",
    ]);
    const { rows } = await sql<{ id: string; fingerprint_hash: string }>`SELECT id, fingerprint_hash FROM devices`.execute(after.db);
    expect(rows).toHaveLength(501);
    for (const row of rows) expect(row.fingerprint_hash).toBe(hashDeviceFingerprint(`secret-fingerprint-${row.id.slice(2)}`));
    expect((await after.stores.devices.findWithSession("u", hashDeviceFingerprint("secret-fingerprint-7")))?.id).toBe("d-7");
  });

  it("rejects when PostgreSQL cannot be reached", async () => {
    await expect(openPostgresStores({ connectionString: "postgres://postgres@127.0.0.1:1/none" })).rejects.toThrow();
  });
});

// What only a real server can show: separate connections, the lock itself, pool ownership.
describe.runIf(database.kind === "postgres")("openPostgresStores on a real server", () => {
  let schema: FreshSchema;

  beforeEach(async () => {
    schema = await database.freshSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  it("runs concurrent queries on separate connections", async () => {
    const { db } = await schema.open();
    const pids = await Promise.all(
      Array.from({ length: 10 }, async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(db)).rows[0]!.pid),
    );
    expect(new Set(pids).size).toBe(10);
  });

  it("waits while another session holds the migration lock, then migrates", async () => {
    const holder = await schema.pool(1).connect();
    try {
      await holder.query("select pg_advisory_lock($1, $2)", [...migrationLockKeys(schema.schema)]);
      let settled = false;
      const opening = schema.open().finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(settled).toBe(false);
      const waiting = await holder.query<{ count: string }>(
        "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())",
      );
      expect(Number(waiting.rows[0]!.count)).toBeGreaterThanOrEqual(1);
      await holder.query("select pg_advisory_unlock($1, $2)", [...migrationLockKeys(schema.schema)]);
      expect((await opening).applied).toEqual(MIGRATION_NAMES);
    } finally {
      holder.release();
    }
  });

  it("does not wait for a migration that holds another schema's lock", async () => {
    const holder = await schema.pool(1).connect();
    try {
      await holder.query("select pg_advisory_lock($1, $2)", [...migrationLockKeys("some_other_install")]);
      const opening = schema.open();
      const waited = await Promise.race([opening.then(() => false), new Promise((resolve) => setTimeout(resolve, 5_000, true))]);
      expect(waited).toBe(false);
      expect((await opening).applied).toEqual(MIGRATION_NAMES);
    } finally {
      await holder.query("select pg_advisory_unlock_all()");
      holder.release();
    }
  });

  it("migrates while other clients create and drop schemas in the same database", async () => {
    // kysely's own introspection resolves every schema and table of the database by name, so a drop
    // that lands mid-query failed it ("schema … does not exist", "column … of relation … does not
    // exist"). Gatehouse introspects its own schema only, by OID, so other clients' DDL cannot.
    const tables = Array.from({ length: 30 }, (_, t) => `create table %s.t${t} (a int, b text, c bigint)`);
    let churning = true;
    const churners = await Promise.all(Array.from({ length: 3 }, () => schema.pool(1).connect()));
    const churn = churners.map(async (client, c) => {
      for (let i = 0; churning; i++) {
        const name = `churn_${process.pid}_${c}_${i}`;
        // Separate statements, so each step commits and other sessions see the schema come and go.
        await client.query(`create schema ${name}`);
        await client.query(tables.map((statement) => statement.replace("%s", name)).join("; "));
        await client.query(`drop schema ${name} cascade`);
      }
    });
    try {
      const others = await Promise.all(Array.from({ length: 16 }, () => database.freshSchema()));
      try {
        for (const other of others) expect((await other.open()).applied).toEqual(MIGRATION_NAMES);
      } finally {
        await Promise.all(others.map((other) => other.drop()));
      }
    } finally {
      churning = false;
      await Promise.all(churn);
      for (const client of churners) client.release();
    }
  });

  it("introspects its own schema only, so other schemas' DDL never reaches its migrator", async () => {
    const other = await database.freshSchema();
    try {
      await other.pool(1).query("create table elsewhere (a int)");
      const { db } = await schema.open();
      const names = (await db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => `${table.schema}.${table.name}`);
      expect(names).toContain(`${schema.schema}.kysely_migration`);
      expect(names).toContain(`${schema.schema}.users`);
      expect(names.filter((name) => !name.startsWith(`${schema.schema}.`))).toEqual([]);
      const users = (await db.introspection.getTables()).find((table) => table.name === "users");
      expect(users?.columns.find((column) => column.name === "phone")).toMatchObject({ dataType: "text", isNullable: true, isAutoIncrementing: false });
    } finally {
      await other.drop();
    }
  });

  it("leaves a pool it was given open on close", async () => {
    const pool = schema.pool();
    const opened = await openPostgresStores({ pool });
    await opened.close();
    expect((await pool.query<{ one: number }>("select 1 as one")).rows).toEqual([{ one: 1 }]);
  });

  it("ends the pool it created on close (twice is harmless); a connection string may place it in a schema", async () => {
    const url = new URL(PG_URL);
    url.searchParams.set("options", `-c search_path=${schema.schema}`);
    const opened = await openPostgresStores({ connectionString: url.toString(), max: 3 });
    expect(opened.applied).toEqual(MIGRATION_NAMES);
    const inSchema = await sql<{ schema: string }>`select current_schema() as schema`.execute(opened.db);
    expect(inSchema.rows).toEqual([{ schema: schema.schema }]);
    await opened.close();
    await opened.close();
    await expect(sql`select 1`.execute(opened.db)).rejects.toThrow();
  });
});
