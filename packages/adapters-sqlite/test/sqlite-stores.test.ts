import { DEFAULT_ORG_MFA_SETTINGS, deviceFingerprintHash, featureKey } from "@gatehouse/core";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStoreContract, seedGraph, USER_ID } from "@gatehouse/core/testing/suites";
import { sql } from "kysely";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATION_NAMES, openSqliteStores, type SqliteStores } from "../src/index.ts";

const hashDeviceFingerprint = deviceFingerprintHash(new Uint8Array(32).fill(7));

/**
 * A real file per test, not only :memory:, so WAL and the on-disk pragmas are what gets tested. Each
 * is a copy of one file migrated and closed (so checkpointed) once: the state a fresh file has after
 * its first open, without running every migration per case. The migrations are proved on fresh files below.
 */
const templateDirectory = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-template-"));
let migratedFile: Promise<string> | undefined;
afterAll(() => rmSync(templateDirectory, { recursive: true, force: true }));

async function migrateOnce(): Promise<string> {
  const filename = join(templateDirectory, "migrated.db");
  await (await openSqliteStores({ filename })).close();
  return filename;
}

describeStoreContract("sqlite", async () => {
  migratedFile ??= migrateOnce();
  const directory = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"));
  const filename = join(directory, "gatehouse.db");
  copyFileSync(await migratedFile, filename);
  const opened = await openSqliteStores({ filename });
  if (opened.appliedMigrations.length > 0) throw new Error("the copied file was not current");
  return {
    stores: opened.stores,
    purgeExpired: opened.purgeExpired,
    failSmsTraffic: async () => {
      await sql`alter table sms_traffic rename to sms_traffic_away`.execute(opened.db);
      return async () => void (await sql`alter table sms_traffic_away rename to sms_traffic`.execute(opened.db));
    },
    close: async () => {
      await opened.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});

describe("openSqliteStores", () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"));
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("creates a new file 0600 (its WAL too) in a directory it creates 0700; an existing file keeps its mode", async () => {
    const filename = join(directory, "private", "gatehouse.db");
    const opened = await openSqliteStores({ filename });
    await opened.stores.orgs.create({ id: "o", name: "O", createdAt: 0 });
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(join(directory, "private"))).toBe(0o700);
    expect(mode(filename)).toBe(0o600);
    expect(mode(`${filename}-wal`)).toBe(0o600);
    await opened.close();

    const shared = join(directory, "shared.db");
    writeFileSync(shared, "");
    chmodSync(shared, 0o640);
    await (await openSqliteStores({ filename: shared })).close();
    expect(mode(shared)).toBe(0o640);
  });

  it("creates missing parent directories and migrates once", async () => {
    const filename = join(directory, "nested", "deeper", "gatehouse.db");
    const first = await openSqliteStores({ filename });
    expect(first.appliedMigrations).toEqual(MIGRATION_NAMES);
    await first.close();
    const second = await openSqliteStores({ filename });
    expect(second.appliedMigrations).toEqual([]);
    await second.close();
  });

  it("sets WAL, the busy timeout, foreign keys and NORMAL sync", async () => {
    const opened = await openSqliteStores({ filename: join(directory, "gatehouse.db") });
    const pragma = async (name: string) => (await sql.raw(`PRAGMA ${name}`).execute(opened.db)).rows[0];
    expect(await pragma("journal_mode")).toEqual({ journal_mode: "wal" });
    expect(await pragma("busy_timeout")).toEqual({ timeout: 5000 });
    expect(await pragma("foreign_keys")).toEqual({ foreign_keys: 1 });
    expect(await pragma("synchronous")).toEqual({ synchronous: 1 });
    await opened.close();
  });

  it("0007_account_security ends existing sessions 30 days after their creation and drops the intents stored by clear id", async () => {
    const filename = join(directory, "gatehouse.db");
    const t0 = Date.UTC(2026, 0, 1, 12);
    const day = 24 * 60 * 60 * 1000;
    const before = await openSqliteStores({ filename });
    await revert0007(before.db);
    await sql`INSERT INTO users (id, email, display_name, password_hash, phone, phone_verified, platform_admin, created_at) VALUES ('u', 'a@b.test', '', 'x', NULL, 0, 0, ${t0})`.execute(
      before.db,
    );
    await sql`INSERT INTO orgs (id, name, created_at) VALUES ('o', 'O', ${t0})`.execute(before.db);
    await sql`INSERT INTO org_mfa_settings VALUES ('o', 0, 1, 1, 3)`.execute(before.db);
    await sql`INSERT INTO devices (id, user_id, org_id, fingerprint, trusted, created_at, last_seen_at) VALUES ('d', 'u', 'o', 'fp', 0, ${t0}, ${t0})`.execute(
      before.db,
    );
    await sql`INSERT INTO mfa_intents (id, user_id, org_id, device_id, expires_at, created_at) VALUES ('clear-id', 'u', 'o', 'd', ${t0 + day}, ${t0})`.execute(
      before.db,
    );
    await sql`INSERT INTO sessions (id, user_id, org_id, device_id, access_token_hash, access_expires_at, refresh_token_hash, refresh_expires_at, created_at, revoked_at)
              VALUES ('s', 'u', 'o', 'd', 'a-1', ${t0 + 60_000}, 'r-1', ${t0 + 90 * day}, ${t0}, NULL)`.execute(before.db);
    await before.close();

    const after = await openSqliteStores({ filename, hashDeviceFingerprint });
    expect(after.appliedMigrations).toEqual([
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
    // 0009_factors and 0011_passkeys: an org's stored settings gain the design's defaults for the new ones.
    expect(await after.stores.settings.getOrg("o")).toEqual({ ...DEFAULT_ORG_MFA_SETTINGS, requireMfaNewDevice: false, trustTtlDays: 3 });
    expect(await after.stores.intents.consume("clear-id", t0)).toBeNull();
    const rotation = await after.stores.sessions.rotate(
      "r-1",
      { accessTokenHash: "a-2", accessExpiresAt: t0 + 40 * day, refreshTokenHash: "r-2", refreshExpiresAt: t0 + 40 * day },
      t0,
    );
    expect(rotation).toMatchObject({ kind: "rotated", session: { expiresAt: t0 + 30 * day, accessExpiresAt: t0 + 30 * day, refreshExpiresAt: t0 + 30 * day } });
    expect(await after.stores.users.findById("u")).toMatchObject({ disabledAt: null });
    await after.close();
  });

  it("0014_device_fingerprint_hashes hashes every stored fingerprint in place with the given key, and refuses to keep them without one", async () => {
    const filename = join(directory, "gatehouse.db");
    const before = await openSqliteStores({ filename });
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
    await revertAfter0013(before.db);
    // 501 devices: more than one batch of the in-place update.
    for (let i = 0; i <= 500; i++) {
      await sql`INSERT INTO devices (id, user_id, org_id, fingerprint, trusted, trusted_until, created_at, last_seen_at, session_issued_at)
                VALUES (${`d-${i}`}, 'u', 'o', ${`secret-fingerprint-${i}`}, 1, 9999999999999, 1, 1, 1)`.execute(before.db);
    }
    await before.close();

    await expect(openSqliteStores({ filename })).rejects.toThrow(/fingerprints in clear/);
    const after = await openSqliteStores({ filename, hashDeviceFingerprint });
    expect(after.appliedMigrations).toEqual([
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
    // The trusted device is found by its hash, as a sign-in looks it up.
    expect((await after.stores.devices.findWithSession("u", hashDeviceFingerprint("secret-fingerprint-7")))?.id).toBe("d-7");
    await after.close();
    // Nothing of a fingerprint is left in the file, WAL included.
    const file = readFileSync(filename).toString("latin1") + (existsSync(`${filename}-wal`) ? readFileSync(`${filename}-wal`).toString("latin1") : "");
    expect(file).not.toContain("secret-fingerprint");
  });

  it("0005_sliding_rate_limits carries each key's latest fixed-window count over: the allowance is not reset by an upgrade", async () => {
    const filename = join(directory, "gatehouse.db");
    const windowStart = Date.UTC(2026, 0, 1, 12);
    const minute = 60_000;
    const before = await openSqliteStores({ filename });
    // Back to the 0004 schema, with the counters an old server left behind.
    await revert0007(before.db);
    await sql`DROP TABLE audit_events`.execute(before.db);
    await sql`DROP TABLE rate_limits`.execute(before.db);
    await sql`DELETE FROM kysely_migration WHERE name IN ('0005_sliding_rate_limits', '0006_audit_events')`.execute(before.db);
    await sql`INSERT INTO users VALUES ('old-user', 'old@example.com', '', 'x', NULL, 0, 0, ${windowStart})`.execute(before.db);
    await sql`CREATE TABLE rate_limit_counters (key text NOT NULL, window_start bigint NOT NULL, count integer NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (key, window_start))`.execute(
      before.db,
    );
    await sql`INSERT INTO rate_limit_counters VALUES ('full', ${windowStart - minute}, 1, ${windowStart}), ('full', ${windowStart}, 3, ${windowStart + minute}), ('partial', ${windowStart}, 1, ${windowStart + minute})`.execute(
      before.db,
    );
    await before.close();

    const after = await openSqliteStores({ filename });
    expect(after.appliedMigrations).toEqual([
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
    // 0008_email_ownership: accounts made under the old rules keep signing in (verified from their creation).
    expect((await after.stores.users.findById("old-user"))?.emailVerifiedAt).toBe(windowStart);
    const { rateLimiter } = after.stores;
    expect(await rateLimiter.consume("full", 3, minute, windowStart + 30_000)).toEqual({ allowed: false, count: 3, retryAt: windowStart + minute });
    expect(await rateLimiter.consume("partial", 3, minute, windowStart + 30_000)).toMatchObject({ allowed: true, count: 2, receipt: { unit: 2 } });
    expect((await rateLimiter.consume("full", 3, minute, windowStart + minute)).allowed).toBe(true);
    await after.close();
  });

  it("0012_registrant_proof keeps a verification link of the old flow, with no proof: opening it will ask for a password", async () => {
    const filename = join(directory, "gatehouse.db");
    const t0 = Date.UTC(2026, 0, 1);
    const before = await openSqliteStores({ filename });
    // Back to the 0011 schema: every later migration undone, newest first, as kysely applies them in name order.
    await revertAfter0013(before.db);
    await sql`DROP TABLE sign_in_networks`.execute(before.db);
    await sql`DELETE FROM kysely_migration WHERE name = '0013_guessing_budgets'`.execute(before.db);
    await sql`ALTER TABLE email_tokens DROP COLUMN registrant_proof_hash`.execute(before.db);
    await sql`DELETE FROM kysely_migration WHERE name = '0012_registrant_proof'`.execute(before.db);
    await sql`INSERT INTO users (id, email, display_name, password_hash, phone, phone_verified, platform_admin, created_at, email_verified_at)
              VALUES ('squatted', 'newhire@example.com', 'Mallory', 'x', NULL, 0, 0, ${t0}, NULL)`.execute(before.db);
    await sql`INSERT INTO email_tokens (token_hash, purpose, user_id, expires_at, created_at) VALUES (${"a".repeat(64)}, 'verify_email', 'squatted', ${t0 + 60_000}, ${t0})`.execute(
      before.db,
    );
    await before.close();

    const after = await openSqliteStores({ filename });
    expect(after.appliedMigrations).toEqual(MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf("0012_registrant_proof")));
    expect(await after.stores.emailTokens.find("a".repeat(64), "verify_email", t0)).toEqual({
      tokenHash: "a".repeat(64),
      purpose: "verify_email",
      userId: "squatted",
      expiresAt: t0 + 60_000,
      createdAt: t0,
    });
    expect((await after.stores.users.findById("squatted"))?.emailVerifiedAt).toBeNull();
    await after.close();
  });

  it("0029_risk_sign_in_features: a sign-in stored before it, with no feature key, counts in the grouped history on its own", async () => {
    const opened = await openSqliteStores({ filename: ":memory:" });
    await seedGraph(opened.stores);
    const seen = {
      at: 1,
      ip: "10.0.0.1",
      country: "US",
      asn: 64500,
      location: null,
      userAgent: "ua",
      browser: "Chrome 131",
      os: "Linux",
      deviceType: "desktop",
      rttMs: null,
    };
    await sql`INSERT INTO risk_sign_ins (id, user_id, at, observation) VALUES ('before', ${USER_ID}, 1, ${JSON.stringify(seen)})`.execute(opened.db);
    await opened.stores.risk.recordSignIn(USER_ID, { ...seen, at: 2 }, 0, 500);
    await opened.stores.risk.recordSignIn(USER_ID, { ...seen, at: 3 }, 0, 500);
    const groups = await opened.stores.risk.signInFeatures(USER_ID, 0);
    expect(groups.toSorted((a, b) => a.times - b.times)).toEqual([
      { features: featureKey(seen), times: 1 },
      { features: featureKey(seen), times: 2 },
    ]);
    await opened.close();
  });

  it("opens an in-memory database", async () => {
    const opened = await openSqliteStores({ filename: ":memory:" });
    expect(opened.appliedMigrations).toEqual(MIGRATION_NAMES);
    expect(await opened.stores.users.findById("nobody")).toBeNull();
    await opened.close();
  });
});

/** Back to the 0013 schema: 0029_risk_sign_in_features, 0028_enforcement_reporting, 0027_extension_sessions, 0025_risk_owner_loop, 0024_extension_grace, 0021_access_jwt_audience, 0020_risk_engine, 0019_oidc, 0016_access_tokens, 0015_sms_refused_countries, then 0014_device_fingerprint_hashes undone (stored values are left as they are). */
async function revertAfter0013(db: SqliteStores["db"]): Promise<void> {
  await sql`ALTER TABLE risk_sign_ins DROP COLUMN features`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0029_risk_sign_in_features'`.execute(db);
  await sql`ALTER TABLE org_mfa_settings DROP COLUMN enforcement_reporting`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0028_enforcement_reporting'`.execute(db);
  await sql`DROP TABLE extension_sessions`.execute(db);
  await sql`ALTER TABLE org_mfa_settings DROP COLUMN require_browser_extension`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0027_extension_sessions'`.execute(db);
  await sql`ALTER TABLE mfa_challenges DROP COLUMN phishing_resistant`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0025_risk_owner_loop'`.execute(db);
  await sql`ALTER TABLE org_mfa_settings DROP COLUMN extension_grace_minutes`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0024_extension_grace'`.execute(db);
  await sql`ALTER TABLE org_mfa_settings DROP COLUMN access_jwt_audience`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0021_access_jwt_audience'`.execute(db);
  for (const table of ["risk_sign_ins", "risk_feature_counts", "risk_events", "org_risk_policies"]) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0020_risk_engine'`.execute(db);
  await sql`DROP TABLE oidc_records`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0019_oidc'`.execute(db);
  await sql`DROP TABLE signing_keys`.execute(db);
  await sql`DROP TABLE resource_servers`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0016_access_tokens'`.execute(db);
  await sql`ALTER TABLE platform_settings DROP COLUMN sms_refused_countries`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0015_sms_refused_countries'`.execute(db);
  await sql`DROP INDEX sessions_device`.execute(db);
  await sql`DROP INDEX retired_refresh_tokens_session`.execute(db);
  await sql`ALTER TABLE devices DROP COLUMN user_agent`.execute(db);
  await sql`ALTER TABLE devices DROP COLUMN last_address`.execute(db);
  await sql`ALTER TABLE devices RENAME COLUMN fingerprint_hash TO fingerprint`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0014_device_fingerprint_hashes'`.execute(db);
}

/** Back to the 0006 schema: 0016_access_tokens, 0015_sms_refused_countries, 0014_device_fingerprint_hashes, 0013_guessing_budgets, 0012_registrant_proof, 0011_passkeys, 0010_sms_destinations, 0009_factors, 0008_email_ownership, then 0007_account_security, undone. */
async function revert0007(db: SqliteStores["db"]): Promise<void> {
  await revertAfter0013(db);
  await sql`DROP TABLE sign_in_networks`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0013_guessing_budgets'`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0012_registrant_proof'`.execute(db);
  await sql`DROP TABLE webauthn_factors`.execute(db);
  await sql`DROP TABLE webauthn_challenges`.execute(db);
  await sql`ALTER TABLE org_mfa_settings DROP COLUMN passkey_sign_in`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0011_passkeys'`.execute(db);
  for (const statement of [
    "DROP TABLE sms_traffic",
    "DROP TABLE sms_breakers",
    "ALTER TABLE platform_settings DROP COLUMN sms_allowed_countries",
    "ALTER TABLE platform_settings DROP COLUMN sms_refused_number_types",
    "ALTER TABLE org_mfa_settings DROP COLUMN sms_allowed_countries",
  ]) {
    await sql.raw(statement).execute(db);
  }
  await sql`DELETE FROM kysely_migration WHERE name = '0010_sms_destinations'`.execute(db);
  await sql`DROP TABLE totp_factors`.execute(db);
  await sql`DROP TABLE recovery_codes`.execute(db);
  for (const column of ["allowed_factors", "require_phishing_resistant", "step_up_max_age_minutes"]) {
    await sql`ALTER TABLE org_mfa_settings DROP COLUMN ${sql.id(column)}`.execute(db);
  }
  for (const column of ["amr", "aal", "mfa_at"]) await sql`ALTER TABLE sessions DROP COLUMN ${sql.id(column)}`.execute(db);
  await sql`ALTER TABLE mfa_challenges DROP COLUMN step_up_session_id`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0009_factors'`.execute(db);
  await sql`DROP TABLE email_tokens`.execute(db);
  await sql`DROP TABLE invitations`.execute(db);
  await sql`ALTER TABLE users DROP COLUMN email_verified_at`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0008_email_ownership'`.execute(db);
  await sql`ALTER TABLE users DROP COLUMN disabled_at`.execute(db);
  await sql`ALTER TABLE sessions DROP COLUMN expires_at`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0007_account_security'`.execute(db);
}
