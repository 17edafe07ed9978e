import type { OrgMfaSettings, PlatformSettings, SettingsStore } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { fromDbBool, toDbBool, type SqlDialect } from "./dialect-differences.ts";
import type { Database } from "./schema.ts";

const PLATFORM_ROW_ID = 1;

export function createSettingsRepository(db: Kysely<Database>, dialect: SqlDialect): SettingsStore {
  return {
    async getPlatform() {
      const row = await db.selectFrom("platform_settings").selectAll().where("id", "=", PLATFORM_ROW_ID).executeTakeFirst();
      if (row === undefined) return null;
      const settings: PlatformSettings = {
        mfaAlways: fromDbBool(row.mfa_always),
        deviceTrustEnabled: fromDbBool(row.device_trust_enabled),
        maxTrustTtlDays: row.max_trust_ttl_days,
      };
      return settings;
    },

    async putPlatform(settings) {
      const columns = {
        mfa_always: toDbBool(dialect, settings.mfaAlways),
        device_trust_enabled: toDbBool(dialect, settings.deviceTrustEnabled),
        max_trust_ttl_days: settings.maxTrustTtlDays,
      };
      await db
        .insertInto("platform_settings")
        .values({ id: PLATFORM_ROW_ID, ...columns })
        .onConflict((conflict) => conflict.column("id").doUpdateSet(columns))
        .execute();
    },

    async getOrg(orgId) {
      const row = await db.selectFrom("org_mfa_settings").selectAll().where("org_id", "=", orgId).executeTakeFirst();
      if (row === undefined) return null;
      const settings: OrgMfaSettings = {
        requireMfaNewDevice: fromDbBool(row.require_mfa_new_device),
        requireMfaUntrustedDevice: fromDbBool(row.require_mfa_untrusted_device),
        trustDeviceAfterMfa: fromDbBool(row.trust_device_after_mfa),
        trustTtlDays: row.trust_ttl_days,
      };
      return settings;
    },

    async putOrg(orgId, settings) {
      const columns = {
        require_mfa_new_device: toDbBool(dialect, settings.requireMfaNewDevice),
        require_mfa_untrusted_device: toDbBool(dialect, settings.requireMfaUntrustedDevice),
        trust_device_after_mfa: toDbBool(dialect, settings.trustDeviceAfterMfa),
        trust_ttl_days: settings.trustTtlDays,
      };
      await db
        .insertInto("org_mfa_settings")
        .values({ org_id: orgId, ...columns })
        .onConflict((conflict) => conflict.column("org_id").doUpdateSet(columns))
        .execute();
    },
  };
}
