/**
 * How long migration 0014 takes to hash stored device fingerprints in place on SQLite (VACUUM and WAL
 * truncation included): a database left at 0011 with N devices in clear, then opened as the server does.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/fingerprint-migration.ts [devices, default 50000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { deviceFingerprintHash } from "@gatehouse/core";
import { sql } from "kysely";

const devices = Number(process.argv[2] ?? 50_000);
const directory = mkdtempSync(join(tmpdir(), "gatehouse-0014-"));
const filename = join(directory, "gatehouse.db");
try {
  const before = await openSqliteStores({ filename });
  const user = { id: "u", email: "u@example.com", displayName: "U", passwordHash: "h", phone: null, phoneVerified: false, platformAdmin: false };
  await before.stores.users.create({ ...user, emailVerifiedAt: 1, createdAt: 1 });
  await before.stores.orgs.create({ id: "o", name: "O", createdAt: 1 });
  const { db } = before;
  // Back to the 0011 schema.
  await sql`DROP INDEX sessions_device`.execute(db);
  await sql`DROP INDEX retired_refresh_tokens_session`.execute(db);
  await sql`ALTER TABLE devices DROP COLUMN user_agent`.execute(db);
  await sql`ALTER TABLE devices DROP COLUMN last_address`.execute(db);
  await sql`ALTER TABLE devices RENAME COLUMN fingerprint_hash TO fingerprint`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0014_device_fingerprint_hashes'`.execute(db);
  for (let i = 0; i < devices; i += 500) {
    const rows = Array.from({ length: Math.min(500, devices - i) }, (_, j) => sql`(${`d-${i + j}`}, 'u', 'o', ${`fingerprint-${i + j}`}, 0, 1, 1)`);
    await sql`INSERT INTO devices (id, user_id, org_id, fingerprint, trusted, created_at, last_seen_at) VALUES ${sql.join(rows)}`.execute(db);
  }
  await before.close();

  const started = performance.now();
  const after = await openSqliteStores({ filename, hashDeviceFingerprint: deviceFingerprintHash(new Uint8Array(32)) });
  const ms = Math.round(performance.now() - started);
  await after.close();
  console.log(JSON.stringify({ devices, applied: after.appliedMigrations, ms }));
} finally {
  rmSync(directory, { recursive: true, force: true });
}
