/** `gatehouse platform …`: the platform settings. */
import { platformSettingsPatchFromJson, platformSettingsToJson } from "@gatehouse/contract";
import { invalidArgument } from "@gatehouse/core";
import { parseJsonOption, type Command } from "./command.ts";

const PLATFORM_SETTINGS_KEYS = '{"mfa_always": bool, "device_trust_enabled": bool, "max_trust_ttl_days": 0-3650}';

/** The platform's commands. */
export const PLATFORM_COMMANDS: Readonly<Record<string, Command>> = {
  "platform settings": {
    summary: "show the platform settings, or change the ones --json names",
    params: {},
    options: { json: ["'{...}'", `the settings to change, any of ${PLATFORM_SETTINGS_KEYS}`] },
    output: "mfa_always, device_trust_enabled, max_trust_ttl_days",
    run: async ({ actor, values, gatehouse }) => {
      const { admin } = gatehouse;
      const settings =
        values.json === undefined
          ? await admin.getPlatformSettings(actor)
          : await admin.updatePlatformSettings(actor, platformSettingsPatchFromJson(parseJsonOption(values.json, "platform settings"), invalidArgument));
      return platformSettingsToJson(settings);
    },
  },
};
