/**
 * Why the per-request reads use scalar subqueries, not LEFT JOINs: on the bench's SQLite fixture
 * (1,000-entry policy), each form of the browser-access read, of the settings read and of the sign-in
 * facts read (user, membership, device, settings), prepared once on better-sqlite3 and run in a tight
 * loop, then the stores' own `browserAccess.resolve` and `signInFacts.read` through kysely.
 * Both forms make the same index lookups (EXPLAIN QUERY PLAN); the joins cost the difference.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/sqlite-statement-forms.ts
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { benchEngine, seedFixture } from "../bench/fixture.ts";

const CALLS = 20_000;
const dir = mkdtempSync(join(tmpdir(), "gatehouse-statement-forms-"));
const databaseUrl = join(dir, "bench.sqlite");

/** Mean microseconds per call over CALLS, after a warm-up. */
async function time(name: string, call: () => unknown): Promise<void> {
  for (let i = 0; i < CALLS / 10; i++) await call();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  console.log(`${name.padEnd(64)} ${(((performance.now() - started) * 1000) / CALLS).toFixed(1)} µs`);
}

try {
  const fixture = await seedFixture({ databaseUrl, policyEntries: 1000, cheapMfaUsers: 1 });
  const org = fixture.orgNoMfa;
  const tokenHash = createHash("sha256").update(fixture.accessToken).digest("hex");
  const now = Date.now();
  const raw = new BetterSqlite3(databaseUrl, { readonly: true });
  const version = (raw.prepare("SELECT version FROM browser_policies WHERE org_id = ?").get(org) as { version: number }).version;

  const session = `FROM sessions s WHERE s.access_token_hash = ? AND s.revoked_at IS NULL AND s.access_expires_at > ?`;
  const joined = raw.prepare(
    `SELECT s.id, s.user_id, s.org_id, m.user_id AS member, p.version, CASE WHEN p.version = ? THEN NULL ELSE p.policy END AS policy
     FROM sessions s LEFT JOIN memberships m ON m.user_id = s.user_id AND m.org_id = ? LEFT JOIN browser_policies p ON p.org_id = ?
     WHERE s.access_token_hash = ? AND s.revoked_at IS NULL AND s.access_expires_at > ?`,
  );
  const subqueries = raw.prepare(
    `SELECT s.id, s.user_id, s.org_id, (SELECT user_id FROM memberships WHERE user_id = s.user_id AND org_id = ?) AS member,
       (SELECT version FROM browser_policies WHERE org_id = ?) AS version,
       (SELECT CASE WHEN version = ? THEN NULL ELSE policy END FROM browser_policies WHERE org_id = ?) AS policy ${session}`,
  );
  await time("browser access, LEFT JOINs", () => joined.all(version, org, org, tokenHash, now));
  await time("browser access, scalar subqueries", () => subqueries.all(org, org, version, org, tokenHash, now));

  const columns = "mfa_always, device_trust_enabled, max_trust_ttl_days, require_mfa_new_device, trust_ttl_days";
  const settingsJoined = raw.prepare(
    `SELECT ${columns} FROM (SELECT 1 AS one) AS anchor LEFT JOIN platform_settings p ON p.id = 1 LEFT JOIN org_mfa_settings o ON o.org_id = ?`,
  );
  const settingsSubqueries = raw.prepare(
    `SELECT ${["mfa_always", "device_trust_enabled", "max_trust_ttl_days"].map((c) => `(SELECT ${c} FROM platform_settings WHERE id = 1)`).join(", ")},
       ${["require_mfa_new_device", "trust_ttl_days"].map((c) => `(SELECT ${c} FROM org_mfa_settings WHERE org_id = ?)`).join(", ")}`,
  );
  await time("settings for an org, LEFT JOINs from an anchor row", () => settingsJoined.all(org));
  await time("settings for an org, scalar subqueries", () => settingsSubqueries.all(org, org));

  // The bench token's session names a user, their org and the device it was issued on.
  const signIn = raw.prepare("SELECT user_id AS u, org_id AS o, device_id AS d FROM sessions WHERE access_token_hash = ?").get(tokenHash) as {
    u: string;
    o: string;
    d: string;
  };
  const deviceColumns = [
    "id",
    "user_id",
    "org_id",
    "fingerprint",
    "trusted",
    "trusted_until",
    "trust_revoked_at",
    "created_at",
    "last_seen_at",
    "session_issued_at",
  ];
  const userAndMembership = `SELECT users.*, (SELECT role FROM memberships WHERE org_id = @o AND user_id = users.id) AS membership_role`;
  const factsJoined = raw.prepare(
    `${userAndMembership}, ${deviceColumns.map((c) => `d.${c} AS device_${c}`).join(", ")}
     FROM users LEFT JOIN devices d ON d.id = @d AND d.user_id = users.id AND d.org_id = @o WHERE users.id = @u`,
  );
  const factsSubqueries = raw.prepare(
    `${userAndMembership}, ${deviceColumns.map((c) => `(SELECT ${c} FROM devices WHERE id = @d AND user_id = users.id AND org_id = @o) AS device_${c}`).join(", ")}
     FROM users WHERE users.id = @u`,
  );
  await time("sign-in facts (settings aside), device LEFT JOINed", () => factsJoined.all(signIn));
  await time("sign-in facts (settings aside), device columns as subqueries", () => factsSubqueries.all(signIn));
  raw.close();

  const engine = await benchEngine(databaseUrl);
  try {
    const { sessions, browserPolicies, signInFacts } = engine.storage.stores;
    await time("the store: the browser reads (kysely, prepared once)", async () => {
      const session = await sessions.findActiveByAccessTokenHash(tokenHash, now);
      return browserPolicies.membershipAndVersion(org, session?.userId ?? "");
    });
    await time("the store: signInFacts.read (kysely, prepared once)", () => signInFacts.read(signIn.u, signIn.o, signIn.d));
  } finally {
    await engine.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
