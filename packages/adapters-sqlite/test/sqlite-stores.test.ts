import type { AuditEvent } from "@gatehouse/core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStoreContract } from "@gatehouse/core/testing/suites";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATION_NAMES, openSqliteStores } from "../src/index.ts";

/** An audit event for the purge cases: only its id and time matter there. */
function memberRemoved(id: string, at: number): AuditEvent {
  return { id, at, kind: "member.removed", actor: { kind: "system" }, orgId: "o", userId: "u", deviceId: null, clientIp: null, userAgent: null, payload: {} };
}

// A real file per test, not only :memory:, so WAL and the on-disk pragmas are what gets tested.
describeStoreContract("sqlite", async () => {
  const directory = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"));
  const opened = await openSqliteStores({ filename: join(directory, "gatehouse.db") });
  return {
    stores: opened.stores,
    purgeExpired: opened.purgeExpired,
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

  it("0005_sliding_rate_limits carries each key's latest fixed-window count over: the allowance is not reset by an upgrade", async () => {
    const filename = join(directory, "gatehouse.db");
    const windowStart = Date.UTC(2026, 0, 1, 12);
    const minute = 60_000;
    const before = await openSqliteStores({ filename });
    // Back to the 0004 schema, with the counters an old server left behind.
    await sql`DROP TABLE audit_events`.execute(before.db);
    await sql`DROP TABLE rate_limits`.execute(before.db);
    for (const statement of [
      "DROP TABLE sms_traffic",
      "DROP TABLE sms_breakers",
      "ALTER TABLE platform_settings DROP COLUMN sms_allowed_countries",
      "ALTER TABLE platform_settings DROP COLUMN sms_refused_number_types",
      "ALTER TABLE org_mfa_settings DROP COLUMN sms_allowed_countries",
    ]) {
      await sql.raw(statement).execute(before.db);
    }
    await sql`DELETE FROM kysely_migration WHERE name IN ('0005_sliding_rate_limits', '0006_audit_events', '0010_sms_destinations')`.execute(before.db);
    await sql`CREATE TABLE rate_limit_counters (key text NOT NULL, window_start bigint NOT NULL, count integer NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (key, window_start))`.execute(
      before.db,
    );
    await sql`INSERT INTO rate_limit_counters VALUES ('full', ${windowStart - minute}, 1, ${windowStart}), ('full', ${windowStart}, 3, ${windowStart + minute}), ('partial', ${windowStart}, 1, ${windowStart + minute})`.execute(
      before.db,
    );
    await before.close();

    const after = await openSqliteStores({ filename });
    expect(after.appliedMigrations).toEqual(["0005_sliding_rate_limits", "0006_audit_events", "0010_sms_destinations"]);
    const { rateLimiter } = after.stores;
    expect(await rateLimiter.consume("full", 3, minute, windowStart + 30_000)).toEqual({ allowed: false, count: 3, retryAt: windowStart + minute });
    expect(await rateLimiter.consume("partial", 3, minute, windowStart + 30_000)).toMatchObject({ allowed: true, count: 2, receipt: { unit: 2 } });
    expect((await rateLimiter.consume("full", 3, minute, windowStart + minute)).allowed).toBe(true);
    await after.close();
  });

  it("opens an in-memory database", async () => {
    const opened = await openSqliteStores({ filename: ":memory:" });
    expect(opened.appliedMigrations).toEqual(MIGRATION_NAMES);
    expect(await opened.stores.users.findById("nobody")).toBeNull();
    await opened.close();
  });

  it("purges ended rate-limit windows, stale retired tokens, expired intents, long-expired challenges and audit events past their retention", async () => {
    const opened = await openSqliteStores({ filename: join(directory, "gatehouse.db") });
    const { stores } = opened;
    const t0 = Date.UTC(2026, 0, 1);
    const day = 24 * 60 * 60 * 1000;
    await stores.users.create({
      id: "u",
      email: "u@example.com",
      displayName: "U",
      passwordHash: "h",
      phone: null,
      phoneVerified: false,
      platformAdmin: false,
      createdAt: t0,
    });
    await stores.orgs.create({ id: "o", name: "O", createdAt: t0 });
    const { device } = await stores.devices.getOrCreate({
      id: "d",
      userId: "u",
      orgId: "o",
      fingerprint: "f",
      trusted: false,
      trustedUntil: null,
      trustRevokedAt: null,
      sessionIssuedAt: null,
      createdAt: t0,
      lastSeenAt: t0,
    });
    const owner = { userId: "u", orgId: "o", deviceId: device.id };
    await stores.rateLimiter.consume("old", 5, 60_000, t0);
    await stores.rateLimiter.consume("current", 5, 60_000, t0 + day);
    await stores.intents.create({ id: "i-old", ...owner, expiresAt: t0 + 1, createdAt: t0 });
    await stores.intents.create({ id: "i-live", ...owner, expiresAt: t0 + 2 * day, createdAt: t0 });
    const challenge = { ...owner, phone: "+15550100", codeHash: "x", attempts: 0, createdAt: t0 };
    await stores.challenges.create({ id: "c-old", ...challenge, expiresAt: t0 - 1 });
    await stores.challenges.create({ id: "c-recent", ...challenge, expiresAt: t0 + day - 1 });
    const pair = (tag: string, expiresAt: number) => ({
      accessTokenHash: `a-${tag}`,
      accessExpiresAt: expiresAt,
      refreshTokenHash: `r-${tag}`,
      refreshExpiresAt: expiresAt,
    });
    await stores.sessions.create({ id: "s", ...owner, ...pair("1", t0 + day), createdAt: t0, revokedAt: null });
    await stores.sessions.rotate("r-1", pair("2", t0 + day), t0);
    await stores.sessions.rotate("r-2", pair("3", t0 + 3 * day), t0);

    await stores.audit.append(memberRemoved("e-old", t0));
    await stores.audit.append(memberRemoved("e-kept", t0 + 1));

    const retention = { auditRetentionMs: day };
    expect(await opened.purgeExpired(t0 + day, retention)).toEqual({
      rateLimitLogs: 1,
      retiredRefreshTokens: 1,
      intents: 1,
      challenges: 1,
      auditEvents: 1,
      smsTraffic: 0,
    });
    expect(await opened.purgeExpired(t0 + day, retention)).toEqual({
      rateLimitLogs: 0,
      retiredRefreshTokens: 0,
      intents: 0,
      challenges: 0,
      auditEvents: 0,
      smsTraffic: 0,
    });
    expect((await stores.audit.list({ limit: 10 })).events.map((event) => event.id)).toEqual(["e-kept"]);
    expect((await stores.rateLimiter.consume("current", 5, 60_000, t0 + day)).count).toBe(2);
    expect(await stores.challenges.findById("c-recent")).not.toBeNull();
    expect(await stores.sessions.rotate("r-2", pair("4", t0 + 3 * day), t0 + day)).toEqual({ kind: "reused", sessionId: "s", ...owner });
    await opened.close();
  });
});
