import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { describe, expect, it } from "vitest";
import { MIGRATION_NAMES, migrateToLatest, migrations } from "../src/migrations.ts";
import type { Database } from "../src/schema.ts";

describe("MIGRATION_NAMES", () => {
  it("lists every migration in the order it applies; an applied one is never renamed or removed, only new ones appended", () => {
    expect(MIGRATION_NAMES).toEqual([
      "0001_initial",
      "0002_device_session_issued",
      "0003_refresh_reuse_interval",
      "0004_org_slug",
      "0005_sliding_rate_limits",
      "0006_audit_events",
      "0007_account_security",
      "0008_email_ownership",
      "0009_factors",
      "0010_sms_destinations",
      "0011_passkeys",
      "0012_registrant_proof",
      "0013_guessing_budgets",
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
  });
});

describe("0013_guessing_budgets", () => {
  it("deletes the rate-limit logs whose key held an email or a phone in clear, and keeps every other", async () => {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(":memory:") }) });
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0011_passkeys")).error).toBeUndefined();
    const keys = [
      "otp-send:phone:+15550000042:900000",
      "otp-send:prefix:+1555000:3600000",
      "password-fail:account:ada@example.com",
      "email-send:address:ada@example.com:3600000",
      "otp-send:user:u:86400000",
      "password-fail:device:u:abc",
      "email-send:client:198.51.100.7:3600000",
    ];
    for (const key of keys) await sql`INSERT INTO rate_limits (key, units, next_unit, taken_unit, expires_at) VALUES (${key}, '[]', 1, 0, 99)`.execute(db);

    expect(await migrateToLatest(db)).toContain("0013_guessing_budgets");
    const left = await db.selectFrom("rate_limits").select("key").orderBy("key").execute();
    expect(left.map((row) => row.key)).toEqual(["email-send:client:198.51.100.7:3600000", "otp-send:user:u:86400000", "password-fail:device:u:abc"]);
    await db.destroy();
  });
});

describe("0002_device_session_issued", () => {
  it("backfills devices that already had a session, so their users are not challenged again; others stay new", async () => {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(":memory:") }) });
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0001_initial")).error).toBeUndefined();
    await sql`INSERT INTO users VALUES ('u', 'ada@example.com', 'Ada', 'h', NULL, 0, 0, 1)`.execute(db);
    await sql`INSERT INTO orgs VALUES ('o', 'Acme', 1)`.execute(db);
    await sql`INSERT INTO devices VALUES ('known', 'u', 'o', 'laptop', 1, 99, NULL, 1, 5), ('seen', 'u', 'o', 'tablet', 0, NULL, NULL, 2, 6)`.execute(db);
    await sql`INSERT INTO sessions VALUES ('s1', 'u', 'o', 'known', 'a1', 10, 'r1', 20, 300, NULL), ('s2', 'u', 'o', 'known', 'a2', 10, 'r2', 20, 200, 250)`.execute(
      db,
    );

    expect(await migrateToLatest(db, { hashDeviceFingerprint: (fingerprint) => `keyed(${fingerprint})` })).toEqual(MIGRATION_NAMES.slice(1));
    const rows = await db.selectFrom("devices").select(["id", "session_issued_at", "fingerprint_hash"]).orderBy("id").execute();
    // 0014_device_fingerprint_hashes: each stored fingerprint replaced by its keyed hash.
    expect(rows).toEqual([
      { id: "known", session_issued_at: 200, fingerprint_hash: "keyed(laptop)" },
      { id: "seen", session_issued_at: null, fingerprint_hash: "keyed(tablet)" },
    ]);
    await db.destroy();
  });
});
