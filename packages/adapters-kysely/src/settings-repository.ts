import {
  DEFAULT_ORG_MFA_SETTINGS,
  DEFAULT_PLATFORM_SETTINGS,
  ENFORCEMENT_REPORTING_MODES,
  FACTOR_KINDS,
  type EnforcementReporting,
  type FactorKind,
  type OrgMfaSettings,
  type PlatformSettings,
  type SettingsStore,
} from "@gatehouse/core";
import { sql, type Kysely, type RawBuilder, type Selectable } from "kysely";
import { fromDbBool, toDbBool, type DbBool, type SqlDialect } from "./dialect-differences.ts";
import type { Database, OrgMfaSettingsTable, PlatformSettingsTable } from "./schema.ts";

const PLATFORM_ROW_ID = 1;

type PlatformColumns = Pick<
  Selectable<PlatformSettingsTable>,
  "mfa_always" | "device_trust_enabled" | "max_trust_ttl_days" | "sms_allowed_countries" | "sms_refused_countries" | "sms_refused_number_types"
>;
type OrgColumns = Pick<
  Selectable<OrgMfaSettingsTable>,
  | "require_mfa_new_device"
  | "require_mfa_untrusted_device"
  | "trust_device_after_mfa"
  | "trust_ttl_days"
  | "sms_allowed_countries"
  | "allowed_factors"
  | "require_phishing_resistant"
  | "step_up_max_age_minutes"
  | "passkey_sign_in"
  | "access_jwt_audience"
  | "extension_grace_minutes"
  | "require_browser_extension"
  | "enforcement_reporting"
>;

/** The JSON array the core validated before it was put; null (a row stored before the column existed) reads as `fallback`. */
function jsonList<T extends string>(text: string | null, fallback: readonly T[]): readonly T[] {
  return text === null ? fallback : (JSON.parse(text) as T[]);
}

/** Stored comma-separated; a kind this version does not know is dropped rather than trusted. */
function toFactorKinds(column: string): FactorKind[] {
  return column.split(",").filter((kind): kind is FactorKind => (FACTOR_KINDS as readonly string[]).includes(kind));
}

function toPlatformSettings(row: PlatformColumns): PlatformSettings {
  return {
    mfaAlways: fromDbBool(row.mfa_always),
    deviceTrustEnabled: fromDbBool(row.device_trust_enabled),
    maxTrustTtlDays: row.max_trust_ttl_days,
    smsAllowedCountries: jsonList(row.sms_allowed_countries, DEFAULT_PLATFORM_SETTINGS.smsAllowedCountries),
    smsRefusedCountries: jsonList(row.sms_refused_countries, DEFAULT_PLATFORM_SETTINGS.smsRefusedCountries),
    smsRefusedNumberTypes: jsonList(row.sms_refused_number_types, DEFAULT_PLATFORM_SETTINGS.smsRefusedNumberTypes),
  };
}

function toOrgSettings(row: OrgColumns): OrgMfaSettings {
  return {
    requireMfaNewDevice: fromDbBool(row.require_mfa_new_device),
    requireMfaUntrustedDevice: fromDbBool(row.require_mfa_untrusted_device),
    trustDeviceAfterMfa: fromDbBool(row.trust_device_after_mfa),
    trustTtlDays: row.trust_ttl_days,
    smsAllowedCountries: jsonList(row.sms_allowed_countries, DEFAULT_ORG_MFA_SETTINGS.smsAllowedCountries),
    allowedFactors: toFactorKinds(row.allowed_factors),
    requirePhishingResistant: fromDbBool(row.require_phishing_resistant),
    passkeySignIn: fromDbBool(row.passkey_sign_in),
    stepUpMaxAgeMinutes: row.step_up_max_age_minutes,
    accessJwtAudience: row.access_jwt_audience ?? DEFAULT_ORG_MFA_SETTINGS.accessJwtAudience,
    extensionGraceMinutes: row.extension_grace_minutes,
    requireBrowserExtension: fromDbBool(row.require_browser_extension),
    enforcementReporting: toEnforcementReporting(row.enforcement_reporting),
  };
}

/** The core validated it before it was put; a value only a newer server knows reads as the default. */
function toEnforcementReporting(value: string): EnforcementReporting {
  return ENFORCEMENT_REPORTING_MODES.find((mode) => mode === value) ?? DEFAULT_ORG_MFA_SETTINGS.enforcementReporting;
}

/** Both settings rows' columns in one row: null columns where a row was never stored. */
export interface SettingsForOrgRow {
  readonly mfa_always: DbBool | null;
  readonly device_trust_enabled: DbBool | null;
  readonly max_trust_ttl_days: number | null;
  readonly platform_sms_allowed_countries: string | null;
  readonly sms_refused_countries: string | null;
  readonly sms_refused_number_types: string | null;
  readonly require_mfa_new_device: DbBool | null;
  readonly require_mfa_untrusted_device: DbBool | null;
  readonly trust_device_after_mfa: DbBool | null;
  readonly trust_ttl_days: number | null;
  readonly org_sms_allowed_countries: string | null;
  readonly allowed_factors: string | null;
  readonly require_phishing_resistant: DbBool | null;
  readonly step_up_max_age_minutes: number | null;
  readonly passkey_sign_in: DbBool | null;
  readonly access_jwt_audience: string | null;
  readonly extension_grace_minutes: number | null;
  readonly require_browser_extension: DbBool | null;
  readonly enforcement_reporting: string | null;
}

/**
 * The select-list of `SettingsForOrgRow`: each column a scalar subquery of its settings row. Subqueries, not
 * LEFT JOINs from a one-row anchor: the cheaper form on SQLite, and PostgreSQL plans both as point reads
 * (docs/decisions/sign-in-facts-read.md).
 */
export function settingsForOrgColumns(orgId: unknown): RawBuilder<unknown> {
  const fromPlatform = (column: keyof Omit<PlatformSettingsTable, "id">, as: string = column) =>
    sql`(SELECT ${sql.ref(column)} FROM platform_settings WHERE id = ${PLATFORM_ROW_ID}) AS ${sql.id(as)}`;
  const fromOrg = (column: keyof Omit<OrgMfaSettingsTable, "org_id">, as: string = column) =>
    sql`(SELECT ${sql.ref(column)} FROM org_mfa_settings WHERE org_id = ${orgId}) AS ${sql.id(as)}`;
  return sql.join([
    fromPlatform("mfa_always"),
    fromPlatform("device_trust_enabled"),
    fromPlatform("max_trust_ttl_days"),
    fromPlatform("sms_allowed_countries", "platform_sms_allowed_countries"),
    fromPlatform("sms_refused_countries"),
    fromPlatform("sms_refused_number_types"),
    fromOrg("require_mfa_new_device"),
    fromOrg("require_mfa_untrusted_device"),
    fromOrg("trust_device_after_mfa"),
    fromOrg("trust_ttl_days"),
    fromOrg("sms_allowed_countries", "org_sms_allowed_countries"),
    fromOrg("allowed_factors"),
    fromOrg("require_phishing_resistant"),
    fromOrg("step_up_max_age_minutes"),
    fromOrg("passkey_sign_in"),
    fromOrg("access_jwt_audience"),
    fromOrg("extension_grace_minutes"),
    fromOrg("require_browser_extension"),
    fromOrg("enforcement_reporting"),
  ]);
}

/** `SettingsStore.getForOrg`'s answer from the columns `settingsForOrgColumns` selected. */
export function settingsFromColumns(row: SettingsForOrgRow): { platform: PlatformSettings | null; org: OrgMfaSettings | null } {
  const { mfa_always, device_trust_enabled, max_trust_ttl_days } = row;
  const platform =
    mfa_always === null || device_trust_enabled === null || max_trust_ttl_days === null
      ? null
      : toPlatformSettings({
          mfa_always,
          device_trust_enabled,
          max_trust_ttl_days,
          sms_allowed_countries: row.platform_sms_allowed_countries,
          sms_refused_countries: row.sms_refused_countries,
          sms_refused_number_types: row.sms_refused_number_types,
        });
  const {
    require_mfa_new_device,
    require_mfa_untrusted_device,
    trust_device_after_mfa,
    trust_ttl_days,
    allowed_factors,
    require_phishing_resistant,
    step_up_max_age_minutes,
    passkey_sign_in,
    extension_grace_minutes,
    require_browser_extension,
  } = row;
  const org =
    require_mfa_new_device === null ||
    require_mfa_untrusted_device === null ||
    trust_device_after_mfa === null ||
    trust_ttl_days === null ||
    allowed_factors === null ||
    require_phishing_resistant === null ||
    step_up_max_age_minutes === null ||
    passkey_sign_in === null ||
    extension_grace_minutes === null ||
    require_browser_extension === null
      ? null
      : toOrgSettings({
          require_mfa_new_device,
          require_mfa_untrusted_device,
          trust_device_after_mfa,
          trust_ttl_days,
          sms_allowed_countries: row.org_sms_allowed_countries,
          allowed_factors,
          require_phishing_resistant,
          step_up_max_age_minutes,
          passkey_sign_in,
          access_jwt_audience: row.access_jwt_audience,
          extension_grace_minutes,
          require_browser_extension,
          enforcement_reporting: row.enforcement_reporting ?? DEFAULT_ORG_MFA_SETTINGS.enforcementReporting,
        });
  return { platform, org };
}

export function createSettingsRepository(db: Kysely<Database>, dialect: SqlDialect): SettingsStore {
  return {
    async getPlatform() {
      const row = await db.selectFrom("platform_settings").selectAll().where("id", "=", PLATFORM_ROW_ID).executeTakeFirst();
      return row === undefined ? null : toPlatformSettings(row);
    },

    async putPlatform(settings) {
      const columns = {
        mfa_always: toDbBool(dialect, settings.mfaAlways),
        device_trust_enabled: toDbBool(dialect, settings.deviceTrustEnabled),
        max_trust_ttl_days: settings.maxTrustTtlDays,
        sms_allowed_countries: JSON.stringify(settings.smsAllowedCountries),
        sms_refused_countries: JSON.stringify(settings.smsRefusedCountries),
        sms_refused_number_types: JSON.stringify(settings.smsRefusedNumberTypes),
      };
      await db
        .insertInto("platform_settings")
        .values({ id: PLATFORM_ROW_ID, ...columns })
        .onConflict((conflict) => conflict.column("id").doUpdateSet(columns))
        .execute();
    },

    async getOrg(orgId) {
      const row = await db.selectFrom("org_mfa_settings").selectAll().where("org_id", "=", orgId).executeTakeFirst();
      return row === undefined ? null : toOrgSettings(row);
    },

    async putOrg(orgId, settings) {
      const columns = {
        require_mfa_new_device: toDbBool(dialect, settings.requireMfaNewDevice),
        require_mfa_untrusted_device: toDbBool(dialect, settings.requireMfaUntrustedDevice),
        trust_device_after_mfa: toDbBool(dialect, settings.trustDeviceAfterMfa),
        trust_ttl_days: settings.trustTtlDays,
        sms_allowed_countries: JSON.stringify(settings.smsAllowedCountries),
        allowed_factors: settings.allowedFactors.join(","),
        require_phishing_resistant: toDbBool(dialect, settings.requirePhishingResistant),
        step_up_max_age_minutes: settings.stepUpMaxAgeMinutes,
        passkey_sign_in: toDbBool(dialect, settings.passkeySignIn),
        access_jwt_audience: settings.accessJwtAudience,
        extension_grace_minutes: settings.extensionGraceMinutes,
        require_browser_extension: toDbBool(dialect, settings.requireBrowserExtension),
        enforcement_reporting: settings.enforcementReporting,
      };
      await db
        .insertInto("org_mfa_settings")
        .values({ org_id: orgId, ...columns })
        .onConflict((conflict) => conflict.column("org_id").doUpdateSet(columns))
        .execute();
    },

    async getForOrg(orgId) {
      const { rows } = await sql<SettingsForOrgRow>`SELECT ${settingsForOrgColumns(orgId)}`.execute(db);
      const row = rows[0];
      if (row === undefined) throw new Error("the settings read returned no row");
      return settingsFromColumns(row);
    },
  };
}
