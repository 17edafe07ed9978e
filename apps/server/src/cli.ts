/**
 * The `gatehouse` command line: bootstraps and administers an install without any client.
 * Prints one JSON object per command on stdout (a listing of audit events: one per event and
 * line). Errors go to stderr as one line: exit 2 for a usage error (unknown command or option,
 * missing or extra argument), 1 for anything else.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  auditEventToJson,
  browserPolicyDraftFromJson,
  browserPolicyToJson,
  orgMfaSettingsPatchFromJson,
  orgMfaSettingsToJson,
  platformSettingsPatchFromJson,
  platformSettingsToJson,
} from "@gatehouse/contract";
import { parseOrgRole, GatehouseError, invalidArgument, MAX_AUDIT_PAGE_SIZE, SYSTEM_ACTOR, type AuditEventsQuery, type Gatehouse } from "@gatehouse/core";
import { pino } from "pino";
import { backupDatabase } from "./backup.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createEngine } from "./engine.ts";
import { createLogger } from "./logger.ts";
import { serve } from "./serve.ts";
import { describeDatabase } from "./storage.ts";

const USAGE = `usage: gatehouse <command> [options]
  serve                                         start the server (what npm start runs)
  migrate                                       apply pending migrations (creates a new SQLite file's directory)
  backup <file>                                 a consistent copy of the SQLite database while servers run (never overwrites;
                                                PostgreSQL: use pg_dump, see docs/operations.md)
  org create <name> [--slug <slug>]             create an organization (slug derived from the name when omitted)
  org list                                      list the organizations
  org settings <org_id> [--json '{...}']        show or change org MFA settings
  user create <email> --password-stdin [--display-name <n>] [--platform-admin]
                                                create a verified account (the operator vouches for the email);
                                                the password is read from stdin, never from the command line
  user disable <email|user_id>                  disable an account: it cannot sign in, its sessions and device trust end
  user enable <email|user_id>                   enable a disabled account again (its next sign-in needs MFA)
  factors list <email|user_id>                  the user's second factors (never a secret)
  factors reset <email|user_id> --reason <text> for a user who lost every factor: removes authenticator apps and recovery
                                                codes, unlocks the phone, ends every session and device trust (audited)
  member add <org_id> <email> [--role member|admin]
                                                add a verified account, or email an invitation ("status": "invited")
  member remove <org_id> <email>
  member list <org_id>                          list the org's members
  platform settings [--json '{...}']            show or change platform settings
  policy get <org_id>                           show the org's browser policy
  policy set <org_id> --json '{...}'            replace the org's browser policy
  audit list [--org <org_id>] [--user <email|user_id>] [--kind <kind>]... [--since <iso>] [--until <iso>] [--limit <n>]
                                                audit events, newest first, one JSON object per line
  --help, -h                                    this text
  --version, -V                                 the version
Reads the same environment as the server (DATABASE_URL, ...) and names the database it uses on stderr.`;

const OPTIONS = {
  json: { type: "string" },
  "password-stdin": { type: "boolean" },
  "display-name": { type: "string" },
  "platform-admin": { type: "boolean" },
  role: { type: "string" },
  slug: { type: "string" },
  org: { type: "string" },
  user: { type: "string" },
  kind: { type: "string", multiple: true },
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  reason: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

type Values = {
  readonly [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[K]["type"] extends "string"
      ? string
      : boolean;
};
type OptionName = Exclude<keyof typeof OPTIONS, "help" | "version">;

interface Invocation {
  readonly args: readonly string[];
  readonly values: Values;
  readonly gatehouse: Gatehouse;
  /** Migrations this run applied (opening the database migrates it). */
  readonly applied: readonly string[];
}

interface CommandShape {
  /** Positional parameters, in order; every one is required. */
  readonly params: readonly string[];
  readonly options: readonly OptionName[];
}

/** What a listing command returns instead of one object: each item is printed as it comes, one JSON object per line. */
class JsonLines {
  readonly lines: AsyncIterable<unknown>;
  constructor(lines: AsyncIterable<unknown>) {
    this.lines = lines;
  }
}

/** A command on the open database; prints what `run` returns as JSON (or as JSON lines, see `JsonLines`). */
interface Command extends CommandShape {
  run(invocation: Invocation): Promise<unknown>;
}

/** `serve` configures itself and runs until it is stopped. */
const SERVE: CommandShape = { params: [], options: [] };
/** `backup` copies the database file as it is: no engine, no migration. */
const BACKUP: CommandShape = { params: ["file"], options: [] };

class UsageError extends Error {}

/** A date (`2026-11-01`, midnight UTC) or a date and time with its zone (`2026-11-01T12:00:00Z`, `…+01:00`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function parseTimeOption(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const at = ISO_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`--${name} must be an ISO 8601 date or time with a zone, such as 2026-11-01 or 2026-11-01T12:00:00Z`);
  return at;
}

function parseLimitOption(raw: string | undefined): number {
  if (raw === undefined) return Number.POSITIVE_INFINITY;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError("--limit must be a whole number of events ≥ 1");
  return Number(raw);
}

/** Follows the cursor page by page until `limit` events (or every matching one) came out. */
async function* auditLines(gatehouse: Gatehouse, query: AuditEventsQuery, limit: number): AsyncGenerator<unknown> {
  let printed = 0;
  let cursor: string | undefined;
  do {
    const page = await gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, { ...query, limit: Math.min(MAX_AUDIT_PAGE_SIZE, limit - printed), cursor });
    for (const event of page.events) yield auditEventToJson(event);
    printed += page.events.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && printed < limit);
}

function parseJsonOption(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`--json for ${what} is not valid JSON`);
  }
}

const COMMANDS: Readonly<Record<string, Command>> = {
  "audit list": {
    params: [],
    options: ["org", "user", "kind", "since", "until", "limit"],
    run: async ({ values, gatehouse }) => {
      const user = values.user;
      const query: AuditEventsQuery = {
        orgId: values.org,
        ...(user?.includes("@") === true ? { userEmail: user } : { userId: user }),
        kinds: values.kind,
        since: parseTimeOption("since", values.since),
        until: parseTimeOption("until", values.until),
      };
      return new JsonLines(auditLines(gatehouse, query, parseLimitOption(values.limit)));
    },
  },
  migrate: { params: [], options: [], run: async ({ applied }) => ({ applied }) },
  "org create": {
    params: ["name"],
    options: ["slug"],
    run: async ({ args, values, gatehouse }) => {
      const created = await gatehouse.admin.createOrg(SYSTEM_ACTOR, args[0]!, values.slug);
      return { org_id: created.orgId, slug: created.slug };
    },
  },
  "org list": {
    params: [],
    options: [],
    run: async ({ gatehouse }) => ({
      orgs: (await gatehouse.admin.listOrgs(SYSTEM_ACTOR)).map((org) => ({
        org_id: org.id,
        name: org.name,
        created_at: new Date(org.createdAt).toISOString(),
      })),
    }),
  },
  "org settings": {
    params: ["org_id"],
    options: ["json"],
    run: async ({ args, values, gatehouse }) => {
      const { admin } = gatehouse;
      const settings =
        values.json === undefined
          ? await admin.getOrgMfaSettings(SYSTEM_ACTOR, args[0]!)
          : await admin.updateOrgMfaSettings(
              SYSTEM_ACTOR,
              args[0]!,
              orgMfaSettingsPatchFromJson(parseJsonOption(values.json, "org settings"), invalidArgument),
            );
      return orgMfaSettingsToJson(settings);
    },
  },
  "platform settings": {
    params: [],
    options: ["json"],
    run: async ({ values, gatehouse }) => {
      const { admin } = gatehouse;
      const settings =
        values.json === undefined
          ? await admin.getPlatformSettings(SYSTEM_ACTOR)
          : await admin.updatePlatformSettings(SYSTEM_ACTOR, platformSettingsPatchFromJson(parseJsonOption(values.json, "platform settings"), invalidArgument));
      return platformSettingsToJson(settings);
    },
  },
  "user create": {
    params: ["email"],
    options: ["password-stdin", "display-name", "platform-admin"],
    run: async ({ args, values, gatehouse }) => {
      // A password on the command line is readable by every local user in the process list.
      if (values["password-stdin"] !== true) throw new UsageError("user create: give --password-stdin and the password on stdin");
      const password = readFileSync(0, "utf8").replace(/\r?\n$/, "");
      const { userId } = await gatehouse.register({
        email: args[0]!,
        password,
        displayName: values["display-name"] ?? "",
        platformAdmin: values["platform-admin"] === true,
        emailVerified: true,
      });
      return { user_id: userId };
    },
  },
  "user disable": {
    params: ["user"],
    options: [],
    run: async ({ args, gatehouse }) => {
      await gatehouse.admin.setUserDisabledByReference(SYSTEM_ACTOR, args[0]!, true);
      return { disabled: true };
    },
  },
  "user enable": {
    params: ["user"],
    options: [],
    run: async ({ args, gatehouse }) => {
      await gatehouse.admin.setUserDisabledByReference(SYSTEM_ACTOR, args[0]!, false);
      return { disabled: false };
    },
  },
  "factors list": {
    params: ["user"],
    options: [],
    run: async ({ args, gatehouse }) => {
      const view = await gatehouse.admin.listUserFactorsByReference(SYSTEM_ACTOR, args[0]!);
      return {
        factors: view.factors.map((factor) => ({
          id: factor.id,
          kind: factor.kind,
          label: factor.label,
          created_at: new Date(factor.createdAt).toISOString(),
          last_used_at: factor.lastUsedAt === null ? null : new Date(factor.lastUsedAt).toISOString(),
        })),
        recovery_codes_left: view.recoveryCodesLeft,
        phone_mask: view.phoneMask,
      };
    },
  },
  "factors reset": {
    params: ["user"],
    options: ["reason"],
    run: async ({ args, values, gatehouse }) => {
      if (values.reason === undefined) throw new UsageError("factors reset needs --reason <text> (it is recorded in the audit trail)");
      await gatehouse.admin.resetUserFactorsByReference(SYSTEM_ACTOR, args[0]!, values.reason);
      return { reset: true };
    },
  },
  "member add": {
    params: ["org_id", "email"],
    options: ["role"],
    run: async ({ args, values, gatehouse }) => {
      const added = await gatehouse.admin.addMember(SYSTEM_ACTOR, args[0]!, args[1]!, parseOrgRole(values.role ?? "member"));
      if (added.status === "invited") {
        const { invitation } = added;
        return { status: "invited", org_id: invitation.orgId, invitation_id: invitation.id, email: invitation.email, role: invitation.role };
      }
      const { membership } = added;
      return { status: "added", org_id: membership.orgId, user_id: membership.userId, role: membership.role };
    },
  },
  "member remove": {
    params: ["org_id", "email"],
    options: [],
    run: async ({ args, gatehouse }) => {
      await gatehouse.admin.removeMemberByEmail(SYSTEM_ACTOR, args[0]!, args[1]!);
      return { removed: true };
    },
  },
  "member list": {
    params: ["org_id"],
    options: [],
    run: async ({ args, gatehouse }) => ({
      members: (await gatehouse.admin.listMembers(SYSTEM_ACTOR, args[0]!)).map((m) => ({ user_id: m.userId, email: m.email, role: m.role })),
    }),
  },
  "policy get": {
    params: ["org_id"],
    options: [],
    run: async ({ args, gatehouse }) => browserPolicyToJson(await gatehouse.admin.getOrgBrowserPolicy(SYSTEM_ACTOR, args[0]!)),
  },
  "policy set": {
    params: ["org_id"],
    options: ["json"],
    run: async ({ args, values, gatehouse }) => {
      if (values.json === undefined) throw new UsageError('policy set needs --json \'{"access_control": {...}, "action_restrictions": {...}}\'');
      const policy = browserPolicyDraftFromJson(parseJsonOption(values.json, "policy"), invalidArgument);
      return browserPolicyToJson(await gatehouse.admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, args[0]!, policy));
    },
  },
};

function version(): string {
  // src/ and dist/ both sit next to package.json.
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

function parse(argv: string[]): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    // node's messages run on with advice about "--"; the first sentence names the problem.
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) throw new UsageError(error.message.split(". ")[0]!);
    throw error;
  }
}

/** Which command the words name (one word or two), and the arguments after them. */
function resolveCommand(positionals: readonly string[]): { name: string; command: Command | CommandShape; args: readonly string[] } {
  if (positionals[0] === "serve") return { name: "serve", command: SERVE, args: positionals.slice(1) };
  if (positionals[0] === "backup") return { name: "backup", command: BACKUP, args: positionals.slice(1) };
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(" ");
    const command = COMMANDS[name];
    if (positionals.length >= words && command !== undefined) return { name, command, args: positionals.slice(words) };
  }
  throw new UsageError(`unknown command "${positionals.slice(0, 2).join(" ")}" (gatehouse --help lists them)`);
}

function checkInvocation(name: string, command: CommandShape, args: readonly string[], values: Values): void {
  const shape = [name, ...command.params.map((param) => `<${param}>`)].join(" ");
  if (args.length < command.params.length) throw new UsageError(`${name}: missing <${command.params[args.length]!}> (usage: ${shape})`);
  if (args.length > command.params.length) throw new UsageError(`${name}: unexpected argument "${args[command.params.length]!}" (usage: ${shape})`);
  for (const option of Object.keys(values)) {
    if (option !== "help" && option !== "version" && !command.options.includes(option as OptionName)) throw new UsageError(`${name} does not take --${option}`);
  }
}

/** Runs the command line; resolves with the exit status. */
export async function main(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv);
    if (values.help === true) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (values.version === true) {
      process.stdout.write(`${version()}\n`);
      return 0;
    }
    if (positionals.length === 0) throw new UsageError(`no command given\n${USAGE}`);
    const { name, command, args } = resolveCommand(positionals);
    checkInvocation(name, command, args, values);
    if (command === BACKUP) {
      process.stdout.write(`${JSON.stringify(backupDatabase(loadConfig().databaseUrl, args[0]!))}\n`);
      return 0;
    }
    if (!("run" in command)) {
      await serve();
      return 0;
    }

    // `migrate` is how an operator creates a new SQLite database's directory; other commands refuse a missing one.
    const loaded = loadConfig();
    const config = name === "migrate" ? { ...loaded, databaseCreate: true } : loaded;
    process.stderr.write(`gatehouse: database ${describeDatabase(config.databaseUrl)}\n`);
    // Logs go to stderr: stdout carries only the command's JSON.
    const engine = await createEngine(config, createLogger("warn", pino.destination(2)));
    try {
      const result = await command.run({ args, values, gatehouse: engine.gatehouse, applied: engine.storage.applied });
      if (result instanceof JsonLines) {
        for await (const line of result.lines) process.stdout.write(`${JSON.stringify(line)}\n`);
      } else {
        process.stdout.write(`${JSON.stringify(result)}\n`);
      }
    } finally {
      await engine.close();
    }
    return 0;
  } catch (error) {
    return report(error);
  }
}

function report(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`gatehouse: ${error.message}\n`);
    return 2;
  }
  if (error instanceof GatehouseError) {
    const violations = error.details.violations ?? [];
    process.stderr.write(`gatehouse: error (${error.kind}): ${error.message}\n${violations.map((v) => `  - ${v}\n`).join("")}`);
    return 1;
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`gatehouse: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
