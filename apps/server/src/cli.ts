/**
 * The `gatehouse` command line: bootstraps and administers an install without any client.
 * Prints one JSON object per command on stdout; errors go to stderr with exit code 1 (2 for usage).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createGatehouse, cryptoRandom, GatehouseError, systemClock, SYSTEM_ACTOR, type OrgMfaSettings, type PlatformSettings } from "@gatehouse/core";
import { policyInputFromJson, policyToJson } from "@gatehouse/transport-connect";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { serve } from "./serve.ts";
import { parseSettingsJson } from "./settings-json.ts";
import { openStorage } from "./storage.ts";

const USAGE = `usage: gatehouse <command>
  serve                                         start the server (what npm start runs)
  migrate                                       apply pending migrations
  org create <name> [--slug <slug>]             create an organization (slug derived from the name when omitted)
  org settings <org_id> [--json '{...}']        show or change org MFA settings
  user create <email> (--password <pw> | --password-stdin) [--display-name <n>] [--platform-admin]
  member add <org_id> <email> [--role member|admin]
  member remove <org_id> <user_id>
  platform settings [--json '{...}']            show or change platform settings
  policy get <org_id>                           show the org's browser policy
  policy set <org_id> --json '{...}'            replace the org's browser policy
Reads the same environment as the server (DATABASE_URL, ...).`;

class UsageError extends Error {}

const ORG_SETTINGS_KEYS = {
  require_mfa_new_device: ["requireMfaNewDevice", "boolean"],
  require_mfa_untrusted_device: ["requireMfaUntrustedDevice", "boolean"],
  trust_device_after_mfa: ["trustDeviceAfterMfa", "boolean"],
  trust_ttl_days: ["trustTtlDays", "integer"],
} as const;

const PLATFORM_SETTINGS_KEYS = {
  mfa_always: ["mfaAlways", "boolean"],
  device_trust_enabled: ["deviceTrustEnabled", "boolean"],
  max_trust_ttl_days: ["maxTrustTtlDays", "integer"],
} as const;

const orgSettingsJson = (s: OrgMfaSettings) => ({
  require_mfa_new_device: s.requireMfaNewDevice,
  require_mfa_untrusted_device: s.requireMfaUntrustedDevice,
  trust_device_after_mfa: s.trustDeviceAfterMfa,
  trust_ttl_days: s.trustTtlDays,
});

const platformSettingsJson = (s: PlatformSettings) => ({
  mfa_always: s.mfaAlways,
  device_trust_enabled: s.deviceTrustEnabled,
  max_trust_ttl_days: s.maxTrustTtlDays,
});

function parseJsonOption(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`--json for ${what} is not valid JSON`);
  }
}

async function run(argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "string" },
      password: { type: "string" },
      "password-stdin": { type: "boolean" },
      "display-name": { type: "string" },
      "platform-admin": { type: "boolean" },
      role: { type: "string" },
      slug: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, sub, ...args] = positionals;
  if (values.help || command === undefined) throw new UsageError(USAGE);
  if (command === "serve") {
    await serve();
    return undefined;
  }

  const config = loadConfig();
  const storage = await openStorage(config.databaseUrl);
  try {
    if (command === "migrate") return { applied: storage.applied };
    const gatehouse = createGatehouse({
      stores: storage.stores,
      clock: systemClock,
      random: cryptoRandom,
      sms: { sendOtp: async () => {} },
      config: { password: config.passwordHash.argon2id },
    });
    const { admin } = gatehouse;
    const arg = (index: number, name: string): string => {
      const value = args[index];
      if (value === undefined) throw new UsageError(`missing <${name}>\n${USAGE}`);
      return value;
    };

    switch (`${command} ${sub ?? ""}`) {
      case "org create": {
        const created = await admin.createOrg(SYSTEM_ACTOR, arg(0, "name"), values.slug);
        return { org_id: created.orgId, slug: created.slug };
      }
      case "org settings": {
        const orgId = arg(0, "org_id");
        const settings =
          values.json === undefined
            ? await admin.getOrgMfaSettings(SYSTEM_ACTOR, orgId)
            : await admin.updateOrgMfaSettings(SYSTEM_ACTOR, orgId, parseSettingsJson(parseJsonOption(values.json, "org settings"), ORG_SETTINGS_KEYS));
        return orgSettingsJson(settings);
      }
      case "platform settings": {
        const settings =
          values.json === undefined
            ? await admin.getPlatformSettings(SYSTEM_ACTOR)
            : await admin.updatePlatformSettings(SYSTEM_ACTOR, parseSettingsJson(parseJsonOption(values.json, "platform settings"), PLATFORM_SETTINGS_KEYS));
        return platformSettingsJson(settings);
      }
      case "user create": {
        if ((values.password === undefined) === (values["password-stdin"] !== true)) throw new UsageError("give exactly one of --password or --password-stdin");
        const password = values.password ?? readFileSync(0, "utf8").replace(/\r?\n$/, "");
        const { userId } = await gatehouse.register({
          email: arg(0, "email"),
          password,
          displayName: values["display-name"] ?? "",
          platformAdmin: values["platform-admin"] === true,
        });
        return { user_id: userId };
      }
      case "member add": {
        const membership = await admin.addMember(SYSTEM_ACTOR, arg(0, "org_id"), arg(1, "email"), values.role ?? "member");
        return { org_id: membership.orgId, user_id: membership.userId, role: membership.role };
      }
      case "member remove":
        await admin.removeMember(SYSTEM_ACTOR, arg(0, "org_id"), arg(1, "user_id"));
        return { removed: true };
      case "policy get":
        return policyToJson(await admin.getOrgBrowserPolicy(SYSTEM_ACTOR, arg(0, "org_id")));
      case "policy set": {
        if (values.json === undefined) throw new UsageError("policy set needs --json '{\"access_control\": {...}, \"action_restrictions\": {...}}'");
        const policy = policyInputFromJson(parseJsonOption(values.json, "policy"));
        return policyToJson(await admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, arg(0, "org_id"), policy));
      }
      default:
        throw new UsageError(`unknown command "${[command, sub].filter(Boolean).join(" ")}"\n${USAGE}`);
    }
  } finally {
    await storage.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    const result = await run(argv);
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    if (error instanceof GatehouseError) {
      const violations = error.details.violations ?? [];
      process.stderr.write(`error (${error.kind}): ${error.message}\n${violations.map((v) => `  - ${v}\n`).join("")}`);
      return 1;
    }
    const logger = createLogger("error");
    logger.error({ err: error }, "command failed");
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
