/** `gatehouse org …`: organizations and their MFA settings. */
import { orgMfaSettingsPatchFromJson, orgMfaSettingsToJson } from "@gatehouse/contract";
import { invalidArgument } from "@gatehouse/core";
import { ORG_PARAM, parseJsonOption, type Command } from "./command.ts";
import { orgIdOf } from "./references.ts";

const ORG_SETTINGS_KEYS =
  '{"require_mfa_new_device": bool, "require_mfa_untrusted_device": bool, "trust_device_after_mfa": bool, "trust_ttl_days": 0-3650, "require_browser_extension": bool}';

/** Organizations' commands. */
export const ORG_COMMANDS: Readonly<Record<string, Command>> = {
  "org create": {
    summary: "create an organization (slug derived from the name when omitted)",
    params: { name: "the organization's name" },
    options: { slug: ["<slug>", "its short name, lower-case letters, digits and dashes (must be free)"] },
    output: '{"org_id", "slug"}',
    run: async ({ actor, args, values, gatehouse }) => {
      const created = await gatehouse.admin.createOrg(actor, { name: args[0]!, slug: values.slug });
      return { org_id: created.orgId, slug: created.slug };
    },
  },
  "org list": {
    summary: "list the organizations, oldest first",
    params: {},
    options: {},
    output: '{"orgs": [{"org_id", "slug", "name", "created_at"}]}',
    run: async ({ actor, gatehouse }) => ({
      orgs: (await gatehouse.admin.listOrgs(actor)).map((org) => ({
        org_id: org.id,
        slug: org.slug ?? null,
        name: org.name,
        created_at: new Date(org.createdAt).toISOString(),
      })),
    }),
  },
  "org settings": {
    summary: "show the org's MFA settings, or change the ones --json names",
    params: { org: ORG_PARAM },
    options: { json: ["'{...}'", `the settings to change, any of ${ORG_SETTINGS_KEYS}`] },
    output: "require_mfa_new_device, require_mfa_untrusted_device, trust_device_after_mfa, trust_ttl_days",
    run: async ({ actor, args, values, gatehouse }) => {
      const { admin } = gatehouse;
      // A malformed --json is a usage error, whatever the org.
      const patch = values.json === undefined ? undefined : orgMfaSettingsPatchFromJson(parseJsonOption(values.json, "org settings"), invalidArgument);
      const orgId = await orgIdOf(gatehouse, args[0]!);
      const settings = patch === undefined ? await admin.getOrgMfaSettings(actor, { orgId }) : await admin.updateOrgMfaSettings(actor, { orgId, patch });
      return orgMfaSettingsToJson(settings);
    },
  },
};
