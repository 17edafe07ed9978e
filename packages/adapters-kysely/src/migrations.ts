import { SqliteAdapter, sql, type Kysely } from "kysely";
import { Migrator, type Migration } from "kysely/migration";
import type { Database } from "./schema.ts";

/**
 * The schema as versioned migrations, in code so they travel with any bundle. Column types are
 * ones both SQLite and PostgreSQL accept (`bigint` gets INTEGER affinity in SQLite), so one list
 * serves both dialects. Never edit an applied migration: add the next one.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  "0001_initial": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("users")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("email", "text", (col) => col.notNull())
        .addColumn("display_name", "text", (col) => col.notNull())
        .addColumn("password_hash", "text", (col) => col.notNull())
        .addColumn("phone", "text")
        .addColumn("phone_verified", "boolean", (col) => col.notNull())
        .addColumn("platform_admin", "boolean", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("users_email_unique").unique().on("users").column("email").execute();

      await db.schema
        .createTable("orgs")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("name", "text", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();

      await db.schema
        .createTable("memberships")
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("role", "text", (col) => col.notNull())
        .addPrimaryKeyConstraint("memberships_pk", ["org_id", "user_id"])
        .execute();

      await db.schema
        .createTable("devices")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("fingerprint", "text", (col) => col.notNull())
        .addColumn("trusted", "boolean", (col) => col.notNull())
        .addColumn("trusted_until", "bigint")
        .addColumn("trust_revoked_at", "bigint")
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .addColumn("last_seen_at", "bigint", (col) => col.notNull())
        .execute();
      // Serves getOrCreate's conflict target and, by its (user_id, org_id) prefix, listByUser.
      await db.schema.createIndex("devices_key_unique").unique().on("devices").columns(["user_id", "org_id", "fingerprint"]).execute();

      await db.schema
        .createTable("mfa_challenges")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("device_id", "text", (col) => col.notNull().references("devices.id").onDelete("cascade"))
        .addColumn("phone", "text", (col) => col.notNull())
        .addColumn("code_hash", "text", (col) => col.notNull())
        .addColumn("attempts", "integer", (col) => col.notNull())
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("mfa_challenges_user_id").on("mfa_challenges").column("user_id").execute();
      await db.schema.createIndex("mfa_challenges_expires_at").on("mfa_challenges").column("expires_at").execute();

      await db.schema
        .createTable("mfa_intents")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("device_id", "text", (col) => col.notNull().references("devices.id").onDelete("cascade"))
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("mfa_intents_user_id").on("mfa_intents").column("user_id").execute();
      await db.schema.createIndex("mfa_intents_expires_at").on("mfa_intents").column("expires_at").execute();

      await db.schema
        .createTable("sessions")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("device_id", "text", (col) => col.notNull().references("devices.id").onDelete("cascade"))
        .addColumn("access_token_hash", "text", (col) => col.notNull())
        .addColumn("access_expires_at", "bigint", (col) => col.notNull())
        .addColumn("refresh_token_hash", "text", (col) => col.notNull())
        .addColumn("refresh_expires_at", "bigint", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .addColumn("revoked_at", "bigint")
        .execute();
      await db.schema.createIndex("sessions_access_token_hash_unique").unique().on("sessions").column("access_token_hash").execute();
      await db.schema.createIndex("sessions_refresh_token_hash_unique").unique().on("sessions").column("refresh_token_hash").execute();
      await db.schema.createIndex("sessions_user_org").on("sessions").columns(["user_id", "org_id"]).execute();

      await db.schema
        .createTable("retired_refresh_tokens")
        .addColumn("token_hash", "text", (col) => col.primaryKey().notNull())
        .addColumn("session_id", "text", (col) => col.notNull().references("sessions.id").onDelete("cascade"))
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("retired_refresh_tokens_expires_at").on("retired_refresh_tokens").column("expires_at").execute();

      await db.schema
        .createTable("platform_settings")
        .addColumn("id", "integer", (col) => col.primaryKey().notNull())
        .addColumn("mfa_always", "boolean", (col) => col.notNull())
        .addColumn("device_trust_enabled", "boolean", (col) => col.notNull())
        .addColumn("max_trust_ttl_days", "integer", (col) => col.notNull())
        .addCheckConstraint("platform_settings_single_row", sql`id = 1`)
        .execute();

      await db.schema
        .createTable("org_mfa_settings")
        .addColumn("org_id", "text", (col) => col.primaryKey().notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("require_mfa_new_device", "boolean", (col) => col.notNull())
        .addColumn("require_mfa_untrusted_device", "boolean", (col) => col.notNull())
        .addColumn("trust_device_after_mfa", "boolean", (col) => col.notNull())
        .addColumn("trust_ttl_days", "integer", (col) => col.notNull())
        .execute();

      await db.schema
        .createTable("browser_policies")
        .addColumn("org_id", "text", (col) => col.primaryKey().notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("policy", "text", (col) => col.notNull())
        .addColumn("version", "integer", (col) => col.notNull())
        .execute();

      await db.schema
        .createTable("rate_limit_counters")
        .addColumn("key", "text", (col) => col.notNull())
        .addColumn("window_start", "bigint", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .addPrimaryKeyConstraint("rate_limit_counters_pk", ["key", "window_start"])
        .execute();
      await db.schema.createIndex("rate_limit_counters_expires_at").on("rate_limit_counters").column("expires_at").execute();
    },
  },

  /*
   * A device is new until a session has been issued for it (not merely until it was first
   * seen). Devices that already had a session are backfilled from the sessions table, so
   * existing users are not all challenged again.
   */
  "0002_device_session_issued": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("devices").addColumn("session_issued_at", "bigint").execute();
      await sql`UPDATE devices SET session_issued_at = (SELECT MIN(sessions.created_at) FROM sessions WHERE sessions.device_id = devices.id)`.execute(db);
    },
  },

  /*
   * The refresh reuse interval: what a retired refresh token needs so a replay within the
   * interval gets the same successor. Tokens retired before this migration have none, so
   * their reuse still revokes.
   */
  "0003_refresh_reuse_interval": {
    async up(db: Kysely<unknown>): Promise<void> {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      await db.schema.alterTable("retired_refresh_tokens").addColumn("successor_hash", "text").execute();
      await db.schema.alterTable("retired_refresh_tokens").addColumn("replay_until", "bigint").execute();
      await db.schema.alterTable("retired_refresh_tokens").addColumn("sealed_successor", "text").execute();
    },
  },

  // Orgs get a short name to sign in with. Existing orgs keep NULL (no backfill: a derived slug could
  // collide, and people already sign in to them by id); both dialects let a unique index hold many NULLs.
  "0004_org_slug": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("orgs").addColumn("slug", "text").execute();
      await db.schema.createIndex("orgs_slug_unique").unique().on("orgs").column("slug").execute();
    },
  },

  "0005_sliding_rate_limits": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("rate_limits")
        .addColumn("key", "text", (col) => col.primaryKey().notNull())
        .addColumn("units", "text", (col) => col.notNull())
        .addColumn("next_unit", "bigint", (col) => col.notNull())
        .addColumn("taken_unit", "bigint", (col) => col.notNull())
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("rate_limits_expires_at").on("rate_limits").column("expires_at").execute();
      await carryOverFixedWindows(db);
      await db.schema.dropTable("rate_limit_counters").execute();
    },
  },

  /*
   * The audit trail. No foreign keys: an event outlives the user, org or device it names, and
   * must never be removed by a cascade. Each filter's index ends in (at, id), the listing's order,
   * so a filtered page is one index range read newest first.
   */
  "0006_audit_events": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("audit_events")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("at", "bigint", (col) => col.notNull())
        .addColumn("kind", "text", (col) => col.notNull())
        .addColumn("actor_kind", "text", (col) => col.notNull())
        .addColumn("actor_user_id", "text")
        .addColumn("org_id", "text")
        .addColumn("user_id", "text")
        .addColumn("device_id", "text")
        .addColumn("client_ip", "text")
        .addColumn("user_agent", "text")
        .addColumn("payload", "text", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("audit_events_at_id").on("audit_events").columns(["at", "id"]).execute();
      await db.schema.createIndex("audit_events_org_at_id").on("audit_events").columns(["org_id", "at", "id"]).execute();
      await db.schema.createIndex("audit_events_user_at_id").on("audit_events").columns(["user_id", "at", "id"]).execute();
      await db.schema.createIndex("audit_events_kind_at_id").on("audit_events").columns(["kind", "at", "id"]).execute();
    },
  },

  /*
   * Accounts (issue 30). Users can be disabled. Sessions get an absolute end that rotation never moves:
   * existing ones end 30 days (the default maximum age) after their creation. Intents are now stored by
   * the SHA-256 of their id, so the ones stored in clear could never be redeemed again: they are dropped
   * (they live minutes, and the sign-in they belong to can start again).
   */
  "0007_account_security": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("users").addColumn("disabled_at", "bigint").execute();
      await db.schema
        .alterTable("sessions")
        .addColumn("expires_at", "bigint", (col) => col.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE sessions SET expires_at = created_at + ${30 * 24 * 60 * 60 * 1000}`.execute(db);
      await sql`DELETE FROM mfa_intents`.execute(db);
    },
  },

  /*
   * Email ownership (accounts.md). Accounts that existed before are marked verified from their creation:
   * they were made under the old rules and people sign in with them today; new ones start unverified.
   * Link tokens and invitations are kept as SHA-256 of their tokens only.
   */
  "0008_email_ownership": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("users").addColumn("email_verified_at", "bigint").execute();
      await sql`UPDATE users SET email_verified_at = created_at`.execute(db);

      await db.schema
        .createTable("email_tokens")
        .addColumn("token_hash", "text", (col) => col.primaryKey().notNull())
        .addColumn("purpose", "text", (col) => col.notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("email_tokens_user_purpose").on("email_tokens").columns(["user_id", "purpose"]).execute();
      await db.schema.createIndex("email_tokens_expires_at").on("email_tokens").column("expires_at").execute();

      await db.schema
        .createTable("invitations")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("email", "text", (col) => col.notNull())
        .addColumn("role", "text", (col) => col.notNull())
        .addColumn("token_hash", "text", (col) => col.notNull())
        .addColumn("invited_by", "text")
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("invitations_org_email_unique").unique().on("invitations").columns(["org_id", "email"]).execute();
      await db.schema.createIndex("invitations_token_hash_unique").unique().on("invitations").column("token_hash").execute();
      await db.schema.createIndex("invitations_expires_at").on("invitations").column("expires_at").execute();
    },
  },

  /*
   * Factors beyond SMS (design/factors.md). Orgs that stored settings get the design's defaults for the
   * new ones. TOTP secrets are stored sealed (AES-256-GCM), recovery codes as keyed hashes only.
   */
  "0009_factors": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("allowed_factors", "text", (col) => col.notNull().defaultTo("sms,totp,webauthn,recovery_code"))
        .execute();
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("require_phishing_resistant", "boolean", (col) => col.notNull().defaultTo(false))
        .execute();
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("step_up_max_age_minutes", "integer", (col) => col.notNull().defaultTo(15))
        .execute();

      await db.schema
        .createTable("totp_factors")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("label", "text", (col) => col.notNull())
        .addColumn("sealed_secret", "text", (col) => col.notNull())
        .addColumn("last_step", "bigint")
        .addColumn("confirmed_at", "bigint")
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .addColumn("last_used_at", "bigint")
        .execute();
      await db.schema.createIndex("totp_factors_user").on("totp_factors").column("user_id").execute();

      await db.schema
        .createTable("recovery_codes")
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("code_hash", "text", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .addPrimaryKeyConstraint("recovery_codes_pk", ["user_id", "code_hash"])
        .execute();

      // What a session proved was not recorded before: existing sessions count as password only, so
      // anything asking for a recent second factor asks them for a step-up.
      await db.schema
        .alterTable("sessions")
        .addColumn("amr", "text", (col) => col.notNull().defaultTo("pwd"))
        .execute();
      await db.schema
        .alterTable("sessions")
        .addColumn("aal", "integer", (col) => col.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable("sessions").addColumn("mfa_at", "bigint").execute();
      // No foreign key: a step-up of a session revoked meanwhile finds it inactive and is refused.
      await db.schema.alterTable("mfa_challenges").addColumn("step_up_session_id", "text").execute();
    },
  },

  /*
   * The SMS destination policy (JSON arrays in the settings rows; null in rows stored before: the
   * defaults) and the conversion breaker's counts, per destination key and 5-minute bucket.
   */
  "0010_sms_destinations": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("platform_settings").addColumn("sms_allowed_countries", "text").execute();
      await db.schema.alterTable("platform_settings").addColumn("sms_refused_number_types", "text").execute();
      await db.schema.alterTable("org_mfa_settings").addColumn("sms_allowed_countries", "text").execute();
      await db.schema
        .createTable("sms_traffic")
        .addColumn("key", "text", (col) => col.notNull())
        .addColumn("bucket_start", "bigint", (col) => col.notNull())
        .addColumn("sent", "integer", (col) => col.notNull())
        .addColumn("verified", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("sms_traffic_pk", ["key", "bucket_start"])
        .execute();
      await db.schema.createIndex("sms_traffic_bucket_start").on("sms_traffic").column("bucket_start").execute();
      await db.schema
        .createTable("sms_breakers")
        .addColumn("key", "text", (col) => col.primaryKey().notNull())
        .addColumn("open_until", "bigint", (col) => col.notNull())
        .execute();
    },
  },

  /*
   * Passkeys (design/factors.md): the credentials, the pending ceremonies' challenges, and the org
   * setting `passkey_sign_in` (on by default, as the design has it).
   */
  "0011_passkeys": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("passkey_sign_in", "boolean", (col) => col.notNull().defaultTo(true))
        .execute();
      await db.schema
        .createTable("webauthn_factors")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("label", "text", (col) => col.notNull())
        .addColumn("credential_id", "text", (col) => col.notNull())
        .addColumn("public_key", "text", (col) => col.notNull())
        .addColumn("counter", "bigint", (col) => col.notNull())
        .addColumn("transports", "text", (col) => col.notNull())
        .addColumn("aaguid", "text", (col) => col.notNull())
        .addColumn("backed_up", "boolean", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .addColumn("last_used_at", "bigint")
        .execute();
      await db.schema.createIndex("webauthn_factors_credential_unique").unique().on("webauthn_factors").column("credential_id").execute();
      await db.schema.createIndex("webauthn_factors_user").on("webauthn_factors").column("user_id").execute();

      // No foreign keys: a sign-in's challenge has no user yet, and a dangling one only waits for its expiry.
      await db.schema
        .createTable("webauthn_challenges")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("ceremony", "text", (col) => col.notNull())
        .addColumn("user_id", "text")
        .addColumn("org_id", "text", (col) => col.notNull())
        .addColumn("challenge", "text", (col) => col.notNull())
        .addColumn("label", "text", (col) => col.notNull())
        .addColumn("expires_at", "bigint", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("webauthn_challenges_user").on("webauthn_challenges").column("user_id").execute();
      await db.schema.createIndex("webauthn_challenges_expires_at").on("webauthn_challenges").column("expires_at").execute();
    },
  },

  /*
   * Whoever holds the mailbox chooses the password (docs/decisions/registrant-proof.md): a verification link
   * keeps the registrant's password only when opened with the proof Register gave that registrant, kept as its
   * SHA-256. Links made before have none (null), so opening one asks for a new password and the password their
   * account was registered with never survives verification: an address squatted before the upgrade goes to
   * whoever opens its link. Nothing else changes for those accounts (still unverified, still unable to sign in).
   */
  "0012_registrant_proof": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("email_tokens").addColumn("registrant_proof_hash", "text").execute();
    },
  },

  /*
   * Guessing budgets that cannot be turned on the owner (docs/security.md, G4 to G6). The networks each
   * account signed in from, by keyed hash. Rate-limit logs whose key held an email or a phone in clear are
   * deleted rather than left to expire: their keys are keyed hashes from now on, so nothing would count
   * them again, and the table should give no address from the moment of the upgrade. The cost is that
   * those limits start afresh once, at the upgrade.
   */
  "0013_guessing_budgets": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("sign_in_networks")
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("network", "text", (col) => col.notNull())
        .addColumn("seen_at", "bigint", (col) => col.notNull())
        .addPrimaryKeyConstraint("sign_in_networks_pk", ["user_id", "network"])
        .execute();
      await sql`DELETE FROM rate_limits
        WHERE key LIKE 'otp-send:phone:%' OR key LIKE 'otp-send:prefix:%'
          OR key LIKE 'password-fail:account:%' OR key LIKE 'email-send:address:%'`.execute(db);
    },
  },

  /*
   * Tokens other services verify (docs/integration.md): the keys that sign access JWTs, only ever added,
   * their private halves sealed under the factor key; and the resource servers that introspect.
   */
  "0016_access_tokens": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("signing_keys")
        .addColumn("kid", "text", (col) => col.primaryKey().notNull())
        .addColumn("alg", "text", (col) => col.notNull())
        .addColumn("public_jwk", "text", (col) => col.notNull())
        .addColumn("sealed_private_jwk", "text", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .addColumn("activates_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema
        .createTable("resource_servers")
        .addColumn("client_id", "text", (col) => col.primaryKey().notNull())
        .addColumn("name", "text", (col) => col.notNull())
        .addColumn("audience", "text", (col) => col.notNull())
        .addColumn("secret_hash", "text", (col) => col.notNull())
        .addColumn("created_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("resource_servers_audience").on("resource_servers").column("audience").execute();
    },
  },

  /*
   * The platform's refused SMS regions (docs/sms-fraud.md, "High-risk regions"): null, as in every row stored
   * before, reads as the shipped high-risk list, so an existing platform is protected by the upgrade itself.
   */
  "0015_sms_refused_countries": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("platform_settings").addColumn("sms_refused_countries", "text").execute();
    },
  },

  /*
   * A device fingerprint is a bearer secret (with the password, a trusted one skips the second factor), so
   * the store keeps its keyed hash instead, and each device the address and user agent of its latest sign-in
   * (what people are shown instead of the fingerprint). Stored fingerprints are hashed in place, here, with
   * the server's key (`MigrateOptions.hashDeviceFingerprint`): no clear fingerprint outlives the upgrade.
   */
  "0014_device_fingerprint_hashes": fingerprintHashMigration(undefined),

  /*
   * The risk engine (docs/risk.md): each user's recent sign-ins (six months, at most 500: the core prunes as
   * it records), the platform's counts per hashed level key (one row per distinct value ever seen, 22
   * characters of key), every judged sign-in, and each org's policy.
   */
  "0020_risk_engine": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("risk_sign_ins")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("at", "bigint", (col) => col.notNull())
        .addColumn("observation", "text", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("risk_sign_ins_user_at").on("risk_sign_ins").columns(["user_id", "at"]).execute();
      await db.schema
        .createTable("risk_feature_counts")
        .addColumn("key", "text", (col) => col.primaryKey().notNull())
        .addColumn("seen", "bigint", (col) => col.notNull())
        .addColumn("distinct_children", "bigint", (col) => col.notNull())
        .execute();
      await db.schema
        .createTable("risk_events")
        .addColumn("id", "text", (col) => col.primaryKey().notNull())
        .addColumn("org_id", "text", (col) => col.notNull())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("at", "bigint", (col) => col.notNull())
        .addColumn("decision", "text", (col) => col.notNull())
        .addColumn("event", "text", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("risk_events_user_at").on("risk_events").columns(["user_id", "at"]).execute();
      await db.schema.createIndex("risk_events_org_at").on("risk_events").columns(["org_id", "at"]).execute();
      await db.schema
        .createTable("org_risk_policies")
        .addColumn("org_id", "text", (col) => col.primaryKey().notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("policy", "text", (col) => col.notNull())
        .execute();
    },
  },

  /*
   * A sign-in challenge the risk engine asked a phishing-resistant factor of (docs/risk.md): existing
   * challenges asked none. The owner's answer on a judged sign-in ("This wasn't me" / "This was me").
   */
  "0025_risk_owner_loop": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("mfa_challenges")
        .addColumn("phishing_resistant", "boolean", (col) => col.notNull().defaultTo(false))
        .execute();
      await db.schema.alterTable("risk_events").addColumn("answer", "text").execute();
      await db.schema.alterTable("risk_events").addColumn("answered_at", "bigint").execute();
    },
  },

  /*
   * One row per browser extension session (docs/browser-extension.md): the extension's version, the policy version
   * it holds and its last rules poll, replaced by every poll. Gone with its session. The org setting that makes
   * `/browser` require a connected extension (false for every org stored before).
   */
  "0027_extension_sessions": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("extension_sessions")
        .addColumn("session_id", "text", (col) => col.primaryKey().notNull().references("sessions.id").onDelete("cascade"))
        .addColumn("org_id", "text", (col) => col.notNull().references("orgs.id").onDelete("cascade"))
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
        .addColumn("device_id", "text", (col) => col.notNull())
        .addColumn("extension_version", "text", (col) => col.notNull())
        .addColumn("policy_version", "bigint", (col) => col.notNull())
        .addColumn("last_poll_at", "bigint", (col) => col.notNull())
        .execute();
      await db.schema.createIndex("extension_sessions_org_user").on("extension_sessions").columns(["org_id", "user_id"]).execute();
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("require_browser_extension", "boolean", (col) => col.notNull().defaultTo(false))
        .execute();
    },
  },

  /*
   * The mounted OpenID Provider's objects (docs/oidc.md): clients, grants, codes, tokens, sessions and
   * interactions, one row per (model, id) with the library's payload as JSON.
   */
  /** The browser extension's grace while the server is unreachable, an org setting (5 minutes, the constant it replaces). */
  "0024_extension_grace": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("extension_grace_minutes", "integer", (col) => col.notNull().defaultTo(5))
        .execute();
    },
  },

  "0019_oidc": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("oidc_records")
        .addColumn("model", "text", (col) => col.notNull())
        .addColumn("id", "text", (col) => col.notNull())
        .addColumn("payload", "text", (col) => col.notNull())
        .addColumn("grant_id", "text")
        .addColumn("uid", "text")
        .addColumn("user_code", "text")
        .addColumn("expires_at", "bigint")
        .addColumn("consumed_at", "bigint")
        .addPrimaryKeyConstraint("oidc_records_pk", ["model", "id"])
        .execute();
      await db.schema.createIndex("oidc_records_grant_id").on("oidc_records").column("grant_id").execute();
      await db.schema.createIndex("oidc_records_uid").on("oidc_records").columns(["model", "uid"]).execute();
      await db.schema.createIndex("oidc_records_user_code").on("oidc_records").columns(["model", "user_code"]).execute();
    },
  },

  /*
   * The org's access JWT audience (docs/integration.md): the resource server every sign-in's access JWT is
   * for. Null in rows stored before, read as empty (none).
   */
  "0021_access_jwt_audience": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("org_mfa_settings").addColumn("access_jwt_audience", "text").execute();
    },
  },

  /** What the browser extension's enforcement reports leave in the audit trail, an org setting (docs/browser-extension.md). */
  "0028_enforcement_reporting": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("org_mfa_settings")
        .addColumn("enforcement_reporting", "text", (col) => col.notNull().defaultTo("host_only"))
        .execute();
    },
  },

  /*
   * Each stored sign-in's feature values as one text (`featureKey`), so the risk engine reads a user's history
   * grouped by it (docs/decisions/risk-at-sign-in.md). Rows stored before hold null and are read one by one.
   */
  "0029_risk_sign_in_features": {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("risk_sign_ins").addColumn("features", "text").execute();
    },
  },
};

/**
 * 0014: renames `fingerprint` to `fingerprint_hash` (its unique index follows) and replaces each stored value
 * by `hash(value)`. Without `hash` it refuses a table that holds devices, rather than keep them in clear.
 */
function fingerprintHashMigration(hash: ((fingerprint: string) => string) | undefined): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Refused before any change: SQLite runs a migration's statements outside one transaction.
      const { rows } = await sql<{ id: string; fingerprint: string }>`SELECT id, fingerprint FROM devices ORDER BY id`.execute(db);
      if (rows.length > 0 && hash === undefined) {
        throw new Error("the devices table holds fingerprints in clear: migrate with the server's key (gatehouse migrate), which hashes them");
      }
      await db.schema.alterTable("devices").renameColumn("fingerprint", "fingerprint_hash").execute();
      await db.schema.alterTable("devices").addColumn("user_agent", "text").execute();
      await db.schema.alterTable("devices").addColumn("last_address", "text").execute();
      // The purge deletes ended sessions and unused devices: their foreign-key cascades and its NOT EXISTS look these up.
      await db.schema.createIndex("sessions_device").on("sessions").column("device_id").execute();
      await db.schema.createIndex("retired_refresh_tokens_session").on("retired_refresh_tokens").column("session_id").execute();
      if (hash === undefined) return;
      const BATCH = 500;
      for (let i = 0; i < rows.length; i += BATCH) {
        const batch = rows.slice(i, i + BATCH);
        const cases = sql.join(
          batch.map((row) => sql`WHEN ${row.id} THEN ${hash(row.fingerprint)}`),
          sql` `,
        );
        const ids = sql.join(batch.map((row) => sql`${row.id}`));
        await sql`UPDATE devices SET fingerprint_hash = CASE id ${cases} END WHERE id IN (${ids})`.execute(db);
      }
      // SQLite keeps a replaced value in free pages and old WAL frames; rewrite the file and empty the WAL so no
      // fingerprint is left to read in it. (PostgreSQL's dead tuples are not readable through SQL nor in a dump.)
      if (db.getExecutor().adapter instanceof SqliteAdapter) {
        await sql`VACUUM`.execute(db);
        await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
      }
    },
  };
}

/** Every migration's name, in the order they apply: what opening a fresh database reports as applied. */
export const MIGRATION_NAMES: readonly string[] = Object.freeze(Object.keys(migrations).sort());

interface CarriedCounter {
  key: string;
  window_start: number | string;
  count: number;
  expires_at: number | string;
}

/**
 * Each key's latest fixed-window count becomes that many units stamped at the window's start: a
 * unit taken at `t` blocks until `t + windowMs`, exactly when the old window would have reset,
 * so an upgrade never hands out a fresh allowance.
 */
async function carryOverFixedWindows(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<CarriedCounter>`
    SELECT key, window_start, count, expires_at FROM rate_limit_counters AS c
    WHERE count > 0 AND window_start = (SELECT max(window_start) FROM rate_limit_counters AS d WHERE d.key = c.key)`.execute(db);
  const logs = rows.map((row) => {
    const windowStart = Number(row.window_start);
    const units = Array.from({ length: row.count }, (_, i) => [windowStart, i + 1]);
    return sql`(${row.key}, ${JSON.stringify(units)}, ${row.count + 1}, 0, ${Number(row.expires_at)})`;
  });
  const BATCH = 500;
  for (let i = 0; i < logs.length; i += BATCH) {
    await sql`INSERT INTO rate_limits (key, units, next_unit, taken_unit, expires_at) VALUES ${sql.join(logs.slice(i, i + BATCH))}`.execute(db);
  }
}

export interface MigrateOptions {
  /**
   * Schema of kysely's bookkeeping tables. PostgreSQL callers must name theirs: without it kysely
   * 0.29 takes a `kysely_migration` table in ANY schema of the database (another app's, another
   * Gatehouse's) for its own and never creates the tables it then needs.
   */
  readonly migrationTableSchema?: string;
  /**
   * How 0014 hashes the device fingerprints stored before it (`deviceFingerprintHash` of @gatehouse/core, under
   * the server's factor key). Needed only when upgrading a database that holds devices: without it that
   * migration fails rather than keep them in clear.
   */
  readonly hashDeviceFingerprint?: ((fingerprint: string) => string) | undefined;
}

/**
 * Applies every migration not yet applied and returns their names in order (empty when the
 * schema is current). Throws when a migration fails. Kysely locks only after its bookkeeping
 * tables exist, so the PostgreSQL adapter wraps this in its own advisory lock for replicas that
 * start together; SQLite serialises writers itself.
 */
export async function migrateToLatest(db: Kysely<Database>, options: MigrateOptions = {}): Promise<string[]> {
  const { hashDeviceFingerprint, ...bookkeeping } = options;
  const provided =
    hashDeviceFingerprint === undefined ? migrations : { ...migrations, "0014_device_fingerprint_hashes": fingerprintHashMigration(hashDeviceFingerprint) };
  const migrator = new Migrator({ db, provider: { getMigrations: async () => provided }, ...bookkeeping });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`database migration ${failed ?? "setup"} failed: ${reason}`, { cause: error });
  }
  return results.filter((result) => result.status === "Success").map((result) => result.migrationName);
}
