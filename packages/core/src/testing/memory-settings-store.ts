import type { MemoryTables } from "./memory-transactions.ts";
import type { OrgMfaSettings, PlatformSettings } from "../model.ts";
import type { SettingsStore } from "../ports.ts";
import { copyOrNull } from "./memory-records.ts";

export function createSettingsStore(tables: MemoryTables): SettingsStore {
  const platform = tables.map<"platform", PlatformSettings>();
  const orgs = tables.map<string, OrgMfaSettings>();
  return {
    async getPlatform() {
      return copyOrNull(platform.get("platform"));
    },
    async putPlatform(settings) {
      platform.set("platform", { ...settings });
    },
    async getOrg(orgId) {
      return copyOrNull(orgs.get(orgId));
    },
    async putOrg(orgId, settings) {
      orgs.set(orgId, { ...settings });
    },
    async getForOrg(orgId) {
      return { platform: copyOrNull(platform.get("platform")), org: copyOrNull(orgs.get(orgId)) };
    },
  };
}
