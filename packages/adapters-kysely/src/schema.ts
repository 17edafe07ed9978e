import type { AuditEventKind, EmailTokenPurpose } from "@gatehouse/core";
import type { ColumnType } from "kysely";
import type { DbBigint, DbBool } from "./dialect-differences.ts";

/**
 * The tables as kysely sees them. Timestamps are epoch milliseconds in `bigint` columns and
 * booleans are 0/1 in SQLite but `boolean` in PostgreSQL, so those columns read back as the
 * loose driver types and every repository converts them through `dialect-differences.ts`.
 */
type EpochMsColumn = ColumnType<DbBigint, number, number>;
type NullableEpochMsColumn = ColumnType<DbBigint | null, number | null, number | null>;
type BoolColumn = ColumnType<DbBool, DbBool, DbBool>;

export interface UsersTable {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  phone: string | null;
  phone_verified: BoolColumn;
  platform_admin: BoolColumn;
  created_at: EpochMsColumn;
  /** 0007_account_security: when a platform admin disabled the user; NULL while enabled. */
  disabled_at: NullableEpochMsColumn;
  /** Null until the mailbox is proven (0008_email_ownership). */
  email_verified_at: NullableEpochMsColumn;
}

/** Verification and reset links (0008_email_ownership); the token itself is never stored. */
export interface EmailTokensTable {
  token_hash: string;
  purpose: EmailTokenPurpose;
  user_id: string;
  expires_at: EpochMsColumn;
  created_at: EpochMsColumn;
  /** 0012_registrant_proof: null for reset links and for verification links made before it. */
  registrant_proof_hash: string | null;
}

/** The networks (keyed hashes) each user signed in from, and when last (0013_guessing_budgets). */
export interface SignInNetworksTable {
  user_id: string;
  network: string;
  seen_at: EpochMsColumn;
}

/** One open invitation per (org_id, email) (0008_email_ownership). */
export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  role: "member" | "admin";
  token_hash: string;
  invited_by: string | null;
  expires_at: EpochMsColumn;
  created_at: EpochMsColumn;
}

export interface OrgsTable {
  id: string;
  name: string;
  /** Unique when set (0004_org_slug); NULL for orgs created before slugs existed. */
  slug: string | null;
  created_at: EpochMsColumn;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: "member" | "admin";
}

export interface DevicesTable {
  id: string;
  user_id: string;
  org_id: string;
  /** Hex HMAC-SHA256 of the client's fingerprint (0014): the fingerprint itself is never stored. */
  fingerprint_hash: string;
  /** User-Agent and client address of the latest sign-in from it (0014). */
  user_agent: string | null;
  last_address: string | null;
  trusted: BoolColumn;
  trusted_until: NullableEpochMsColumn;
  trust_revoked_at: NullableEpochMsColumn;
  created_at: EpochMsColumn;
  last_seen_at: EpochMsColumn;
  /** First session issued for the device; null while it is new. */
  session_issued_at: NullableEpochMsColumn;
}

export interface MfaChallengesTable {
  id: string;
  user_id: string;
  org_id: string;
  device_id: string;
  phone: string;
  code_hash: string;
  attempts: number;
  expires_at: EpochMsColumn;
  created_at: EpochMsColumn;
  /** 0009_factors: the session a step-up challenge renews; null for a sign-in. */
  step_up_session_id: string | null;
  /** 0025_risk_owner_loop: the risk engine asked for a passkey. */
  phishing_resistant: BoolColumn;
}

export interface MfaIntentsTable {
  id: string;
  user_id: string;
  org_id: string;
  device_id: string;
  expires_at: EpochMsColumn;
  created_at: EpochMsColumn;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  org_id: string;
  device_id: string;
  access_token_hash: string;
  access_expires_at: EpochMsColumn;
  refresh_token_hash: string;
  refresh_expires_at: EpochMsColumn;
  created_at: EpochMsColumn;
  /** 0007_account_security: the absolute end; no rotation moves it or lets a token expire after it. */
  expires_at: EpochMsColumn;
  revoked_at: NullableEpochMsColumn;
  /** 0009_factors: comma-separated `amr` values. */
  amr: string;
  aal: number;
  mfa_at: NullableEpochMsColumn;
}

/** Refresh token hashes rotated away, kept for reuse detection until `expires_at` (the replacing token's expiry). */
export interface RetiredRefreshTokensTable {
  token_hash: string;
  session_id: string;
  expires_at: EpochMsColumn;
  /** The refresh token hash that replaced this one; a replay is answered only while it is the session's current one. */
  successor_hash: string | null;
  /** Until when a replay of this token gets `sealed_successor` instead of revoking the session. */
  replay_until: NullableEpochMsColumn;
  /** The successor tokens, sealed by the core under a key derived from this (unstored) token. */
  sealed_successor: string | null;
}

/** A single row, `id = 1`. */
export interface PlatformSettingsTable {
  id: number;
  mfa_always: BoolColumn;
  device_trust_enabled: BoolColumn;
  max_trust_ttl_days: number;
  /** JSON arrays; null in a row stored before they existed (read as the defaults). */
  sms_allowed_countries: string | null;
  /** JSON array; null in a row stored before migration 0015 (read as the shipped high-risk list). */
  sms_refused_countries: string | null;
  sms_refused_number_types: string | null;
}

export interface OrgMfaSettingsTable {
  org_id: string;
  require_mfa_new_device: BoolColumn;
  require_mfa_untrusted_device: BoolColumn;
  trust_device_after_mfa: BoolColumn;
  trust_ttl_days: number;
  /** A JSON array; null in a row stored before it existed (read as every region). */
  sms_allowed_countries: string | null;
  /** Comma-separated factor kinds. */
  allowed_factors: string;
  require_phishing_resistant: BoolColumn;
  step_up_max_age_minutes: number;
  /** 0011_passkeys. */
  passkey_sign_in: BoolColumn;
  /** 0021_access_jwt_audience; null in rows stored before (none). */
  access_jwt_audience: string | null;
  /** 0024_extension_grace. */
  extension_grace_minutes: number;
  /** 0027_extension_sessions. */
  require_browser_extension: BoolColumn;
  /** 0028_enforcement_reporting: `full`, `host_only` or `off`. */
  enforcement_reporting: string;
}

/** Codes sent and verified per destination key (`country:US`, `prefix:+1202555`) and 5-minute bucket. */
export interface SmsTrafficTable {
  key: string;
  bucket_start: EpochMsColumn;
  sent: number;
  verified: number;
}

export interface SmsBreakersTable {
  key: string;
  open_until: EpochMsColumn;
}

export interface TotpFactorsTable {
  id: string;
  user_id: string;
  label: string;
  sealed_secret: string;
  last_step: NullableEpochMsColumn;
  confirmed_at: NullableEpochMsColumn;
  created_at: EpochMsColumn;
  last_used_at: NullableEpochMsColumn;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: EpochMsColumn;
}

/** 0011_passkeys: a user's passkeys and security keys. */
export interface WebAuthnFactorsTable {
  id: string;
  user_id: string;
  label: string;
  /** Unique across users. */
  credential_id: string;
  public_key: string;
  counter: ColumnType<DbBigint, number, number>;
  /** Comma-separated. */
  transports: string;
  aaguid: string;
  backed_up: BoolColumn;
  created_at: EpochMsColumn;
  last_used_at: NullableEpochMsColumn;
}

/** 0011_passkeys: one row per pending WebAuthn ceremony, deleted by its first answer. */
export interface WebAuthnChallengesTable {
  id: string;
  ceremony: "register" | "authenticate" | "sign_in";
  user_id: string | null;
  org_id: string;
  challenge: string;
  label: string;
  expires_at: EpochMsColumn;
  created_at: EpochMsColumn;
}

export interface BrowserPoliciesTable {
  org_id: string;
  /** The `BrowserPolicy` as JSON text: opaque to the store, validated by the core before it is put. */
  policy: string;
  version: number;
}

/** One sliding log per key (see rate-limiter.ts). */
export interface RateLimitsTable {
  key: string;
  /** JSON array of `[at, unit]` pairs: the units taken, pruned to the window on every consume. */
  units: string;
  /** The number the next unit taken gets; unit numbers are never reused while the row lives. */
  next_unit: ColumnType<DbBigint, number, number>;
  /** The unit the latest consume took, 0 when it refused: how the statement reports its own outcome. */
  taken_unit: ColumnType<DbBigint, number, number>;
  /** When the newest unit leaves its window: rows past it are dead and removed by `purgeExpired`. */
  expires_at: EpochMsColumn;
}

/** Append-only (0006_audit_events): rows are inserted, and deleted only by the retention sweep in `purgeExpired`. */
export interface AuditEventsTable {
  id: string;
  at: EpochMsColumn;
  kind: AuditEventKind;
  actor_kind: "user" | "system" | "anonymous";
  /** The user's id when `actor_kind` is "user"; the operator who ran the command line when it is "system" (null when unknown). */
  actor_user_id: string | null;
  org_id: string | null;
  user_id: string | null;
  device_id: string | null;
  client_ip: string | null;
  user_agent: string | null;
  /** The kind's payload as JSON text (see `AuditPayloads` in the core). */
  payload: string;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  sealed_private_jwk: string;
  created_at: EpochMsColumn;
  activates_at: EpochMsColumn;
}

export interface ResourceServersTable {
  client_id: string;
  name: string;
  audience: string;
  secret_hash: string;
  created_at: EpochMsColumn;
}

/** Each user's recent sign-ins as the risk engine saw them (0020_risk_engine). */
export interface RiskSignInsTable {
  id: string;
  user_id: string;
  at: EpochMsColumn;
  /** The `RiskObservation`, as JSON. */
  observation: string;
  /** Its `featureKey`, which the history is read grouped by; null in rows stored before 0029. */
  features: string | null;
}

/** The platform's sign-ins per hashed level key, and the distinct values below it (0020_risk_engine). */
export interface RiskFeatureCountsTable {
  key: string;
  seen: EpochMsColumn;
  distinct_children: EpochMsColumn;
}

/** Every judged sign-in (0020_risk_engine). */
export interface RiskEventsTable {
  id: string;
  org_id: string;
  user_id: string;
  at: EpochMsColumn;
  decision: string;
  /** The whole `RiskEvent` as judged, as JSON. */
  event: string;
  /** 0025_risk_owner_loop: the owner's answer, `true_positive` or `false_positive`; null until given. */
  answer: string | null;
  answered_at: NullableEpochMsColumn;
}

/** Each org's risk policy, in `riskPolicyToJson`'s form (0020_risk_engine). */
export interface OrgRiskPoliciesTable {
  org_id: string;
  policy: string;
}

export interface OidcRecordsTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: NullableEpochMsColumn;
  consumed_at: NullableEpochMsColumn;
}

/** One row per browser extension session, replaced by each rules poll (0027_extension_sessions). */
export interface ExtensionSessionsTable {
  session_id: string;
  org_id: string;
  user_id: string;
  device_id: string;
  extension_version: string;
  policy_version: EpochMsColumn;
  last_poll_at: EpochMsColumn;
}

export interface Database {
  users: UsersTable;
  orgs: OrgsTable;
  memberships: MembershipsTable;
  devices: DevicesTable;
  mfa_challenges: MfaChallengesTable;
  mfa_intents: MfaIntentsTable;
  sessions: SessionsTable;
  retired_refresh_tokens: RetiredRefreshTokensTable;
  platform_settings: PlatformSettingsTable;
  org_mfa_settings: OrgMfaSettingsTable;
  browser_policies: BrowserPoliciesTable;
  rate_limits: RateLimitsTable;
  audit_events: AuditEventsTable;
  email_tokens: EmailTokensTable;
  invitations: InvitationsTable;
  sign_in_networks: SignInNetworksTable;
  sms_traffic: SmsTrafficTable;
  sms_breakers: SmsBreakersTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  webauthn_factors: WebAuthnFactorsTable;
  webauthn_challenges: WebAuthnChallengesTable;
  signing_keys: SigningKeysTable;
  resource_servers: ResourceServersTable;
  risk_sign_ins: RiskSignInsTable;
  risk_feature_counts: RiskFeatureCountsTable;
  risk_events: RiskEventsTable;
  org_risk_policies: OrgRiskPoliciesTable;
  oidc_records: OidcRecordsTable;
  extension_sessions: ExtensionSessionsTable;
}
