/**
 * The `gatehouse` command line: bootstraps and administers an install without any client, and lets an
 * operator with the database handle an incident (find a user, end their sessions and device trust).
 * Prints one JSON object per command on stdout (a listing of audit events: one per event and
 * line). Errors go to stderr as one line: exit 2 for a usage error (unknown command or option,
 * missing or extra argument), 1 for anything else. Every command describes itself in COMMANDS, and
 * `gatehouse help` / `gatehouse <command> --help` are written from those descriptions (docs/cli.md).
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import {
  auditEventToJson,
  browserPolicyDraftFromJson,
  browserPolicyToJson,
  orgMfaSettingsPatchFromJson,
  orgMfaSettingsToJson,
  platformSettingsPatchFromJson,
  platformSettingsToJson,
  riskEventToJson,
  smsDestinationPolicyPatchFromJson,
  smsDestinationPolicyToJson,
  smsTrafficRowToJson,
} from "@gatehouse/contract";
import {
  chromePolicyFor,
  GatehouseError,
  invalidArgument,
  maskPhone,
  MAX_AUDIT_PAGE_SIZE,
  MAX_RISK_EVENTS_PAGE,
  parseOrgRole,
  riskPolicyToJson,
  SYSTEM_ACTOR,
  type Actor,
  type AuditEventsQuery,
  type DeviceSummary,
  type OperatorSessionView,
  type Gatehouse,
  type User,
} from "@gatehouse/core";
import { backupDatabase } from "./backup.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createEngine } from "./engine.ts";
import { createLogger } from "./logger.ts";
import { serve } from "./serve.ts";
import { evaluateDatasetCommand } from "./risk/evaluate.ts";
import { describeDatabase } from "./storage.ts";
import { serverVersion } from "./version.ts";

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
  audience: { type: "string" },
  dataset: { type: "string" },
  policy: { type: "string" },
  actor: { type: "string" },
  "server-url": { type: "string" },
  "update-url": { type: "string" },
  "redirect-uri": { type: "string", multiple: true },
  "first-party": { type: "boolean" },
  "backchannel-logout-uri": { type: "string" },
  "post-logout-redirect-uri": { type: "string", multiple: true },
  public: { type: "boolean" },
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
type OptionName = Exclude<keyof typeof OPTIONS, "help" | "version" | "actor">;

/**
 * What a run reads and writes besides the database: the process's by default; a test passes its own to run
 * the CLI in its process.
 */
export interface CliIo {
  /** The environment loadConfig reads. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The whole of stdin, read only by the command that needs it. */
  readStdin(): Promise<string>;
}

const PROCESS_IO: CliIo = {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin: async () => readFileSync(0, "utf8"),
};

interface Invocation {
  readonly args: readonly string[];
  readonly values: Values;
  readonly gatehouse: Gatehouse;
  /** Migrations this run applied (opening the database migrates it). */
  readonly applied: readonly string[];
  readonly readStdin: () => Promise<string>;
  /** Who runs the command (`--actor`, else the OS user): recorded in the audit trail of what it changes. */
  readonly actor: Actor;
}

/**
 * How a command describes itself; `gatehouse help` and `gatehouse <command> --help` print nothing else.
 * A new command registers by adding its entry to COMMANDS with these fields filled in.
 */
interface CommandShape {
  /** One line: what the command does. */
  readonly summary: string;
  /** Positional parameters in order, each with what it takes; every one is required. */
  readonly params: Readonly<Record<string, string>>;
  /** The options the command accepts, each with its value's form ("" for a flag) and what it does. */
  readonly options: Readonly<Partial<Record<OptionName, readonly [value: string, text: string]>>>;
  /** The keys of the JSON it prints on stdout. */
  readonly output: string;
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

const isRunnable = (command: CommandShape): command is Command => "run" in command;

/** `serve` configures itself and runs until it is stopped. */
const SERVE: CommandShape = {
  summary: "start the server (what npm start runs); configured by the environment (docs/configuration.md)",
  params: {},
  options: {},
  output: "none: JSON log lines on stdout until stopped",
};
/** `backup` copies the database file as it is: no engine, no migration. */
const BACKUP: CommandShape = {
  summary: "a consistent copy of the SQLite database while servers run; never overwrites (PostgreSQL: pg_dump, see docs/operations.md)",
  params: { file: "where to write the copy (must not exist)" },
  options: {},
  output: '{"backup" (the file), "database", "bytes", "ms"}',
};

/** `risk evaluate` replays a file through the engine in memory: no database. */
const RISK_EVALUATE: CommandShape = {
  summary:
    "replay a login history (the RBA dataset's columns) through the risk engine in memory, in time order; IP_COUNTRY_DB, IP_ASN_DB, IP_CITY_DB as the server",
  params: {},
  options: {
    dataset: ["<file.csv>", "the history, oldest first (docs/risk.md: the open RBA dataset or scripts/risk-trace.ts)"],
    policy: ["<file.json>", "a candidate risk policy, as gatehouse risk policy set takes it (default: the built-in one)"],
  },
  output:
    '{"sign_ins", "scored", "decisions": {allow, mfa, phishing_resistant, block}, "attack_logins", "attack_caught_rate", "owner_logins", "owner_reauth_rate", "score_ms": {p50, p99, max}}',
};

const RISK_POLICY_KEYS =
  '{"mode": "off"|"audit"|"enforce", "thresholds": {"mfa", "phishing_resistant", "block": 0-100 or null}, "allowed_countries", "denied_countries": ["US", ...], "denied_asns": [n, ...], "notify_new_location", "notify_new_device": bool}';

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

const iso = (at: number | null | undefined): string | null => (at === null || at === undefined ? null : new Date(at).toISOString());

/** The org an argument names (id or slug), as its id. */
const orgIdOf = async (gatehouse: Gatehouse, reference: string): Promise<string> => (await gatehouse.admin.findOrgByReference(SYSTEM_ACTOR, reference)).id;

function userToJson(user: User) {
  return {
    user_id: user.id,
    email: user.email,
    display_name: user.displayName,
    platform_admin: user.platformAdmin,
    email_verified_at: iso(user.emailVerifiedAt),
    // Masked: this output ends up in tickets and chat; the operator can read the full number from the database.
    phone: user.phone === null ? null : maskPhone(user.phone),
    phone_verified: user.phoneVerified,
    disabled_at: iso(user.disabledAt),
    created_at: iso(user.createdAt),
  };
}

/** Never the fingerprint: the store holds only its keyed hash, and that is not shown either. */
function deviceToJson(device: DeviceSummary, now: number) {
  return {
    device_id: device.id,
    org_id: device.orgId,
    user_id: device.userId,
    label: device.label,
    user_agent: device.userAgent,
    last_address: device.lastAddress,
    trusted: device.trusted && device.trustedUntil !== null && device.trustedUntil > now,
    trusted_until: iso(device.trustedUntil),
    trust_revoked_at: iso(device.trustRevokedAt),
    created_at: iso(device.createdAt),
    last_seen_at: iso(device.lastSeenAt),
  };
}

function sessionToJson(session: OperatorSessionView) {
  return {
    session_id: session.id,
    org_id: session.orgId,
    device_id: session.deviceId,
    device_label: session.deviceLabel,
    user_agent: session.userAgent,
    last_address: session.lastAddress,
    amr: session.amr,
    aal: session.aal,
    created_at: iso(session.createdAt),
    last_seen_at: iso(session.lastSeenAt),
    expires_at: iso(session.expiresAt),
  };
}

const ORG_PARAM = "the organization's id or slug";
const USER_PARAM = "the account's email or user id";
const USER_KEYS = "user_id, email, display_name, platform_admin, email_verified_at, phone (masked), phone_verified, disabled_at, created_at";
const DEVICE_KEYS = "device_id, org_id, user_id, label, user_agent, last_address, trusted (now), trusted_until, trust_revoked_at, created_at, last_seen_at";
const SESSION_KEYS = "session_id, org_id, device_id, device_label, user_agent, last_address, amr, aal, created_at, last_seen_at, expires_at";
const POLICY_KEYS =
  '{"access_control": {"allowed_domains": [...], "blocked_domains": [...], "default_action": "allow"|"deny", "wildcard_supported": bool}, "action_restrictions": {"allowed_actions": ["navigate"|"download"|"upload"|"copy_paste", ...], "read_only_mode": bool}}';
const ORG_SETTINGS_KEYS = '{"require_mfa_new_device": bool, "require_mfa_untrusted_device": bool, "trust_device_after_mfa": bool, "trust_ttl_days": 0-3650}';
const PLATFORM_SETTINGS_KEYS = '{"mfa_always": bool, "device_trust_enabled": bool, "max_trust_ttl_days": 0-3650}';

const COMMANDS: Readonly<Record<string, Command>> = {
  "audit list": {
    summary: "audit events, newest first, one JSON object per line",
    params: {},
    options: {
      org: ["<org>", ORG_PARAM],
      user: ["<email|user_id>", "events about this user"],
      kind: ["<kind>", "only events of this kind (repeat for several), such as session.revoked"],
      since: ["<iso>", "events at or after, such as 2026-11-01 or 2026-11-01T12:00:00Z"],
      until: ["<iso>", "events before"],
      limit: ["<n>", "at most n events (default: all)"],
    },
    output: "per line: id, at, kind, actor, org_id, user_id, device_id, client_ip, user_agent, payload",
    run: async ({ values, gatehouse }) => {
      const user = values.user;
      const query: AuditEventsQuery = {
        orgId: values.org === undefined ? undefined : await orgIdOf(gatehouse, values.org),
        ...(user?.includes("@") === true ? { userEmail: user } : { userId: user }),
        kinds: values.kind,
        since: parseTimeOption("since", values.since),
        until: parseTimeOption("until", values.until),
      };
      return new JsonLines(auditLines(gatehouse, query, parseLimitOption(values.limit)));
    },
  },
  "risk policy get": {
    summary: "show the org's risk policy (the default, in audit mode, until one is set)",
    params: { org: ORG_PARAM },
    options: {},
    output: RISK_POLICY_KEYS,
    run: async ({ args, gatehouse }) => riskPolicyToJson(await gatehouse.admin.getOrgRiskPolicy(SYSTEM_ACTOR, await orgIdOf(gatehouse, args[0]!))),
  },
  "risk policy set": {
    summary: "change the org's risk policy: the fields given replace the current ones, validated whole (audited)",
    params: { org: ORG_PARAM },
    options: { json: ["'{...}'", `required: any of ${RISK_POLICY_KEYS}`] },
    output: "the stored policy, keys as --json",
    run: async ({ args, values, gatehouse }) => {
      if (values.json === undefined) throw new UsageError('risk policy set needs --json \'{"mode": "enforce", ...}\'');
      const orgId = await orgIdOf(gatehouse, args[0]!);
      return riskPolicyToJson(await gatehouse.admin.updateOrgRiskPolicy(SYSTEM_ACTOR, orgId, parseJsonOption(values.json, "risk policy")));
    },
  },
  "risk events": {
    summary: "judged sign-ins, newest first, one JSON object per line: the decision and each signal's assessment",
    params: {},
    options: {
      user: ["<email|user_id>", "this user's sign-ins"],
      org: ["<org>", `${ORG_PARAM} (default: every org)`],
      limit: ["<n>", `at most n events (default and most: ${MAX_RISK_EVENTS_PAGE})`],
    },
    output:
      "per line: id, at, org_id, user_id, mode, decision, applied, score, signals [{signal, value, user_seen, user_total, platform_seen, contribution, code}], rules [{code, decision, detail}], sign_in and previous {at, ip, country, asn, location, browser, os, device_type, rtt_ms}",
    run: async ({ values, gatehouse }) => {
      const limit = Math.min(parseLimitOption(values.limit), MAX_RISK_EVENTS_PAGE);
      const orgId = values.org === undefined ? null : await orgIdOf(gatehouse, values.org);
      const userId = values.user === undefined ? undefined : (await gatehouse.admin.findUserByReference(SYSTEM_ACTOR, values.user)).id;
      const events = await gatehouse.admin.listRiskEvents(SYSTEM_ACTOR, { orgId, limit, ...(userId === undefined ? {} : { userId }) });
      return new JsonLines(
        (async function* () {
          for (const event of events) yield riskEventToJson(event);
        })(),
      );
    },
  },
  "client create": {
    summary: "register a resource server: it introspects tokens with these credentials, and access JWTs may name its audience (audited)",
    params: { name: "the service's name" },
    options: { audience: ["<uri>", "required: the URI its tokens' aud names, such as https://billing.example.com"] },
    output: '{"client_id", "client_secret" (shown this once: only its hash is stored), "audience"}',
    run: async ({ args, values, gatehouse }) => {
      if (values.audience === undefined) throw new UsageError("client create needs --audience <uri>");
      const created = await gatehouse.tokens.createResourceServer(SYSTEM_ACTOR, args[0]!, values.audience);
      return { client_id: created.clientId, client_secret: created.clientSecret, audience: values.audience };
    },
  },
  "keys list": {
    summary: "the access JWT signing keys, oldest first, and where each stands now",
    params: {},
    options: {},
    output: '{"keys": [{"kid", "state" ("pending", "signing", "retiring", "retired"), "created_at", "activates_at"}]}',
    run: async ({ gatehouse }) => ({
      keys: (await gatehouse.tokens.listSigningKeys(SYSTEM_ACTOR)).map((key) => ({
        kid: key.kid,
        state: key.state,
        created_at: iso(key.createdAt),
        activates_at: iso(key.activatesAt),
      })),
    }),
  },
  "oidc client create": {
    summary: "register an app that signs its users in with Gatehouse (OpenID Connect, code + PKCE) for one org (audited)",
    params: { org: ORG_PARAM, name: "the app's name" },
    options: {
      "redirect-uri": ["<uri>", "required: an exact redirect URI, https or http on a loopback host (repeat it for several)"],
      "first-party": ["", "the org's own app: its members are not asked to consent"],
      public: ["", "a browser or native app that keeps no secret (PKCE alone)"],
      "backchannel-logout-uri": ["<uri>", "where the app gets a logout token when the Gatehouse session its sign-in came from ends"],
      "post-logout-redirect-uri": ["<uri>", "where the app's logout request may send the browser afterwards (repeat it for several)"],
    },
    output: '{"client_id", "client_secret" (shown this once: only its hash is stored; null for --public)}',
    run: async ({ args, values, gatehouse }) => {
      const redirectUris = values["redirect-uri"] ?? [];
      if (redirectUris.length === 0) throw new UsageError("oidc client create needs --redirect-uri <uri>");
      const created = await gatehouse.oidc.createClient(SYSTEM_ACTOR, await orgIdOf(gatehouse, args[0]!), {
        name: args[1]!,
        redirectUris,
        firstParty: values["first-party"] === true,
        public: values.public === true,
        ...(values["backchannel-logout-uri"] === undefined ? {} : { backchannelLogoutUri: values["backchannel-logout-uri"] }),
        postLogoutRedirectUris: values["post-logout-redirect-uri"] ?? [],
      });
      return { client_id: created.clientId, client_secret: created.clientSecret };
    },
  },
  "keys rotate": {
    summary:
      "add a new signing key for access JWTs: published at once, signing after one token lifetime and JWKS cache age; the old key stays published until its tokens expired (audited)",
    params: {},
    options: {},
    output: '{"kid", "activates_at", "retiring_kid"}',
    run: async ({ gatehouse }) => {
      await gatehouse.tokens.ensureSigningKey();
      const rotated = await gatehouse.tokens.rotateSigningKey(SYSTEM_ACTOR);
      return { kid: rotated.kid, activates_at: iso(rotated.activatesAt), retiring_kid: rotated.retiringKid };
    },
  },
  migrate: {
    summary: "apply pending migrations (creates a new SQLite file's directory)",
    params: {},
    options: {},
    output: '{"applied": [migration names]}',
    run: async ({ applied }) => ({ applied }),
  },
  "org create": {
    summary: "create an organization (slug derived from the name when omitted)",
    params: { name: "the organization's name" },
    options: { slug: ["<slug>", "its short name, lower-case letters, digits and dashes (must be free)"] },
    output: '{"org_id", "slug"}',
    run: async ({ actor, args, values, gatehouse }) => {
      const created = await gatehouse.admin.createOrg(actor, args[0]!, values.slug);
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
      const settings = patch === undefined ? await admin.getOrgMfaSettings(actor, orgId) : await admin.updateOrgMfaSettings(actor, orgId, patch);
      return orgMfaSettingsToJson(settings);
    },
  },
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
  "sms policy": {
    summary: "show where OTPs may be sent (the platform's, or with --org the org's), or change it with --json",
    params: {},
    options: {
      org: ["<org>", "the organization's id or slug (its list narrows the platform's); without it, the platform's policy"],
      json: [
        "'{...}'",
        'the policy to change, any of {"allowed_countries": [ISO 3166 alpha-2], "refused_countries": [ISO 3166 alpha-2], "refused_number_types": [types]} (the org takes allowed_countries only; refused_countries widens or narrows the shipped high-risk list)',
      ],
    },
    output: "allowed_countries, refused_countries, refused_number_types",
    run: async ({ actor, values, gatehouse }) => {
      const { admin } = gatehouse;
      const patch = values.json === undefined ? undefined : smsDestinationPolicyPatchFromJson(parseJsonOption(values.json, "sms policy"), invalidArgument);
      const orgId = values.org === undefined ? null : await orgIdOf(gatehouse, values.org);
      const policy = patch === undefined ? await admin.getSmsDestinationPolicy(actor, orgId) : await admin.updateSmsDestinationPolicy(actor, orgId, patch);
      return smsDestinationPolicyToJson(policy);
    },
  },
  "sms report": {
    summary: "OTP codes sent and verified, and their conversion, per country and number prefix over a period",
    params: {},
    options: {
      since: ["<iso>", "required: the period's start, such as 2026-11-01 or 2026-11-01T12:00:00Z"],
      until: ["<iso>", "the period's end (default: now)"],
    },
    output: '{"rows": [{scope, key, sent, verified, conversion}]}',
    run: async ({ actor, values, gatehouse }) => {
      const since = parseTimeOption("since", values.since);
      if (since === undefined) throw new UsageError("sms report needs --since <iso>");
      const until = parseTimeOption("until", values.until) ?? Date.now();
      return { rows: (await gatehouse.admin.getSmsTrafficReport(actor, since, until)).map(smsTrafficRowToJson) };
    },
  },
  "user create": {
    summary: "create a verified account (the operator vouches for the email); the password is read from stdin, never from the command line",
    params: { email: "the account's email" },
    options: {
      "password-stdin": ["", "required: read the password from stdin (one line)"],
      "display-name": ["<name>", "the name shown to people"],
      "platform-admin": ["", "make the account a platform admin"],
    },
    output: '{"user_id"}',
    run: async ({ args, values, gatehouse, readStdin }) => {
      // A password on the command line is readable by every local user in the process list.
      if (values["password-stdin"] !== true) throw new UsageError("user create: give --password-stdin and the password on stdin");
      const password = (await readStdin()).replace(/\r?\n$/, "");
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
  "user list": {
    summary: "list every account, oldest first",
    params: {},
    options: {},
    output: `{"users": [{${USER_KEYS}}]}`,
    run: async ({ actor, gatehouse }) => ({ users: (await gatehouse.admin.listUsers(actor)).map(userToJson) }),
  },
  "user show": {
    summary: "one account and the organizations it belongs to",
    params: { user: USER_PARAM },
    options: {},
    output: `{${USER_KEYS}, "orgs": [{"org_id", "slug", "role"}]}`,
    run: async ({ actor, args, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await admin.findUserByReference(actor, args[0]!);
      const orgs = [];
      for (const org of await admin.listOrgs(actor)) {
        const member = (await admin.listMembers(actor, org.id)).find((m) => m.userId === user.id);
        if (member !== undefined) orgs.push({ org_id: org.id, slug: org.slug ?? null, role: member.role });
      }
      return { ...userToJson(user), orgs };
    },
  },
  "user disable": {
    summary: "disable an account: it cannot sign in, its sessions and device trust end",
    params: { user: USER_PARAM },
    options: {},
    output: '{"disabled": true}',
    run: async ({ actor, args, gatehouse }) => {
      await gatehouse.admin.setUserDisabledByReference(actor, args[0]!, true);
      return { disabled: true };
    },
  },
  "user enable": {
    summary: "enable a disabled account again (its next sign-in needs MFA)",
    params: { user: USER_PARAM },
    options: {},
    output: '{"disabled": false}',
    run: async ({ actor, args, gatehouse }) => {
      await gatehouse.admin.setUserDisabledByReference(actor, args[0]!, false);
      return { disabled: false };
    },
  },
  "session list": {
    summary: "the user's live sessions in every org: the device each signs in from, its user agent and last address",
    params: { user: USER_PARAM },
    options: {},
    output: `{"sessions": [{${SESSION_KEYS}}]}`,
    run: async ({ args, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await admin.findUserByReference(SYSTEM_ACTOR, args[0]!);
      return { sessions: (await admin.listSessionsOfUser(SYSTEM_ACTOR, user.id)).map(sessionToJson) };
    },
  },
  "session revoke": {
    summary: "sign the user out: end their sessions and their devices' trust, in every org or in one (the next sign-in needs MFA)",
    params: { user: USER_PARAM },
    options: { org: ["<org>", `only in this organization (${ORG_PARAM})`] },
    output: '{"user_id", "org_id" (null: every org), "revoked_count"}',
    run: async ({ actor, args, values, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await admin.findUserByReference(actor, args[0]!);
      if (values.org === undefined) {
        const { revokedCount } = await admin.revokeUserSessionsEverywhere(actor, user.id);
        return { user_id: user.id, org_id: null, revoked_count: revokedCount };
      }
      const orgId = await orgIdOf(gatehouse, values.org);
      const { revokedCount } = await admin.revokeUserSessions(actor, orgId, user.id);
      return { user_id: user.id, org_id: orgId, revoked_count: revokedCount };
    },
  },
  "device list": {
    summary: "the user's devices, in every org or in one",
    params: { user: USER_PARAM },
    options: { org: ["<org>", `only in this organization (${ORG_PARAM})`] },
    output: `{"devices": [{${DEVICE_KEYS}}]}`,
    run: async ({ actor, args, values, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await admin.findUserByReference(actor, args[0]!);
      const devices =
        values.org === undefined
          ? await admin.listDevicesOfUser(actor, user.id)
          : await admin.listUserDevices(actor, await orgIdOf(gatehouse, values.org), user.id);
      const now = Date.now();
      return { devices: devices.map((device) => deviceToJson(device, now)) };
    },
  },
  "device revoke": {
    summary: "end a device's trust and every session issued for it (its next sign-in needs MFA)",
    params: { device_id: "the device's id (device list shows it)" },
    options: {},
    output: '{"device_id", "org_id", "user_id", "trust_revoked": true}',
    run: async ({ actor, args, gatehouse }) => {
      const device = await gatehouse.admin.revokeDeviceTrustById(actor, args[0]!);
      return { device_id: device.id, org_id: device.orgId, user_id: device.userId, trust_revoked: true };
    },
  },
  "factors list": {
    summary: "the user's second factors (never a secret): passkeys, authenticator apps, recovery codes left, the masked phone",
    params: { user: USER_PARAM },
    options: {},
    output: '{"factors": [{id, kind, label, created_at, last_used_at}], "recovery_codes_left", "phone_mask"}',
    run: async ({ actor, args, gatehouse }) => {
      const view = await gatehouse.admin.listUserFactorsByReference(actor, args[0]!);
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
    summary:
      "for a user who lost every factor: removes passkeys, authenticator apps and recovery codes, unlocks the phone, ends every session and device trust (audited)",
    params: { user: USER_PARAM },
    options: { reason: ["<text>", "required: why, recorded in the audit trail"] },
    output: '{"reset": true}',
    run: async ({ actor, args, values, gatehouse }) => {
      if (values.reason === undefined) throw new UsageError("factors reset needs --reason <text> (it is recorded in the audit trail)");
      await gatehouse.admin.resetUserFactorsByReference(actor, args[0]!, values.reason);
      return { reset: true };
    },
  },
  "member add": {
    summary: 'add a verified account to the org, or email an invitation ("status": "invited")',
    params: { org: ORG_PARAM, email: "the account's email" },
    options: { role: ["member|admin", "the role (default: member)"] },
    output: 'added: {"status": "added", "org_id", "user_id", "role"}; invited: {"status": "invited", "org_id", "invitation_id", "email", "role"}',
    run: async ({ actor, args, values, gatehouse }) => {
      const role = parseOrgRole(values.role ?? "member");
      const added = await gatehouse.admin.addMember(actor, await orgIdOf(gatehouse, args[0]!), args[1]!, role);
      if (added.status === "invited") {
        const { invitation } = added;
        return { status: "invited", org_id: invitation.orgId, invitation_id: invitation.id, email: invitation.email, role: invitation.role };
      }
      const { membership } = added;
      return { status: "added", org_id: membership.orgId, user_id: membership.userId, role: membership.role };
    },
  },
  "member remove": {
    summary: "remove the account from the org (its sessions there end)",
    params: { org: ORG_PARAM, email: "the account's email" },
    options: {},
    output: '{"removed": true}',
    run: async ({ actor, args, gatehouse }) => {
      await gatehouse.admin.removeMemberByEmail(actor, await orgIdOf(gatehouse, args[0]!), args[1]!);
      return { removed: true };
    },
  },
  "member list": {
    summary: "list the org's members",
    params: { org: ORG_PARAM },
    options: {},
    output: '{"members": [{"user_id", "email", "role"}]}',
    run: async ({ actor, args, gatehouse }) => ({
      members: (await gatehouse.admin.listMembers(actor, await orgIdOf(gatehouse, args[0]!))).map((m) => ({
        user_id: m.userId,
        email: m.email,
        role: m.role,
      })),
    }),
  },
  "browser chrome-policy": {
    summary: "print the Chrome/Edge managed-policy JSON that force-installs and configures the extension for the org (docs/browser-extension.md)",
    params: { org: ORG_PARAM },
    options: {
      "server-url": ["https://…", "required: the Gatehouse server members connect to"],
      "update-url": ["https://…", "where Chrome fetches the extension (default: the Chrome Web Store)"],
    },
    output: '{"ExtensionSettings", "3rdparty", "DeveloperToolsAvailability", "IncognitoModeAvailability", "DownloadRestrictions" when no download is allowed}',
    run: async ({ args, values, gatehouse }) => {
      if (values["server-url"] === undefined) throw new UsageError("browser chrome-policy needs --server-url https://…");
      const orgId = await orgIdOf(gatehouse, args[0]!);
      const policy = await gatehouse.admin.getOrgBrowserPolicy(SYSTEM_ACTOR, orgId);
      try {
        return chromePolicyFor({
          orgId,
          serverUrl: values["server-url"],
          policy,
          ...(values["update-url"] === undefined ? {} : { updateUrl: values["update-url"] }),
        });
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(error.message);
        throw error;
      }
    },
  },
  "policy get": {
    summary: "show the org's browser policy",
    params: { org: ORG_PARAM },
    options: {},
    output: POLICY_KEYS,
    run: async ({ actor, args, gatehouse }) => browserPolicyToJson(await gatehouse.admin.getOrgBrowserPolicy(actor, await orgIdOf(gatehouse, args[0]!))),
  },
  "policy set": {
    summary: "replace the org's browser policy",
    params: { org: ORG_PARAM },
    options: { json: ["'{...}'", `required: the whole policy, ${POLICY_KEYS}`] },
    output: "the stored policy, keys as --json",
    run: async ({ actor, args, values, gatehouse }) => {
      if (values.json === undefined) throw new UsageError('policy set needs --json \'{"access_control": {...}, "action_restrictions": {...}}\'');
      const policy = browserPolicyDraftFromJson(parseJsonOption(values.json, "policy"), invalidArgument);
      return browserPolicyToJson(await gatehouse.admin.updateOrgBrowserPolicy(actor, await orgIdOf(gatehouse, args[0]!), policy));
    },
  },
};

/** Every command by name, in the order `gatehouse help` lists them. */
const ALL_COMMANDS: ReadonlyMap<string, CommandShape> = new Map<string, CommandShape>([
  ["serve", SERVE],
  ["backup", BACKUP],
  ["risk evaluate", RISK_EVALUATE],
  ...Object.entries(COMMANDS).sort(([a], [b]) => (a === "migrate" ? -1 : b === "migrate" ? 1 : a.localeCompare(b))),
]);

function synopsis(name: string, command: CommandShape): string {
  const params = Object.keys(command.params).map((param) => `<${param}>`);
  const options = Object.entries(command.options).map(([option, [value, text]]) => {
    const flag = `--${option}${value === "" ? "" : ` ${value}`}`;
    return text.startsWith("required:") ? flag : `[${flag}]`;
  });
  return [name, ...params, ...options].join(" ");
}

const USAGE = [
  "usage: gatehouse <command> [options]",
  ...[...ALL_COMMANDS].map(([name, command]) => `  ${synopsis(name, command)}\n      ${command.summary}`),
  "  help [<command>]",
  "      this text, or one command's options and output (also: gatehouse <command> --help)",
  "  --version, -V                 the version",
  "  --actor <name>                who runs the command, for the audit trail (default: the OS user)",
  "Reads the same environment as the server (DATABASE_URL, ...) and names the database it uses on stderr.",
  "Prints JSON on stdout; exit 0 done, 1 refused or failed (one line on stderr), 2 usage error. See docs/cli.md.",
].join("\n");

function commandHelp(name: string, command: CommandShape): string {
  const lines = [`usage: gatehouse ${synopsis(name, command)}`, `  ${command.summary}`];
  for (const [param, text] of Object.entries(command.params)) lines.push(`  <${param}>  ${text}`);
  const options = Object.entries(command.options);
  if (options.length > 0) lines.push("options:");
  for (const [option, [value, text]] of options) lines.push(`  --${option}${value === "" ? "" : ` ${value}`}  ${text}`);
  lines.push(`output: ${command.output}`);
  return lines.join("\n");
}

/** Help for what the words name: the whole usage, one command, or every command of a group (`org`); null for nothing known. */
function helpFor(words: readonly string[]): string | null {
  if (words.length === 0) return USAGE;
  const name = words.join(" ");
  const command = ALL_COMMANDS.get(name);
  if (command !== undefined) return commandHelp(name, command);
  const group = [...ALL_COMMANDS].filter(([candidate]) => candidate.startsWith(`${name} `));
  return group.length === 0 || words.length > 1 ? null : group.map(([each, shape]) => commandHelp(each, shape)).join("\n\n");
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

/** Which command the words name (one to three), and the arguments after them. */
function resolveCommand(positionals: readonly string[]): { name: string; command: CommandShape; args: readonly string[] } {
  for (const words of [3, 2, 1]) {
    const name = positionals.slice(0, words).join(" ");
    const command = ALL_COMMANDS.get(name);
    if (positionals.length >= words && command !== undefined) return { name, command, args: positionals.slice(words) };
  }
  throw new UsageError(`unknown command "${positionals.slice(0, 2).join(" ")}" (gatehouse help lists them)`);
}

function checkInvocation(name: string, command: CommandShape, args: readonly string[], values: Values): void {
  const params = Object.keys(command.params);
  const shape = [name, ...params.map((param) => `<${param}>`)].join(" ");
  if (args.length < params.length) throw new UsageError(`${name}: missing <${params[args.length]!}> (usage: ${shape})`);
  if (args.length > params.length) throw new UsageError(`${name}: unexpected argument "${args[params.length]!}" (usage: ${shape})`);
  for (const option of Object.keys(values)) {
    if (option !== "help" && option !== "version" && option !== "actor" && !(option in command.options))
      throw new UsageError(`${name} does not take --${option}`);
  }
}

/** `gatehouse help [words]` and `gatehouse [words] --help`: the usage, a command's or a group's help; unknown words are a usage error. */
function printHelp(words: readonly string[], stdout: CliIo["stdout"]): number {
  const help = helpFor(words);
  if (help === null) throw new UsageError(`unknown command "${words.join(" ")}" (gatehouse help lists them)`);
  stdout.write(`${help}\n`);
  return 0;
}

/**
 * The operator as the audit trail names them: `--actor` when given (a person's name behind a shared account, a
 * ticket), else the OS user running the command; never empty, at most 64 printable characters.
 */
function operatorActor(given: string | undefined): Actor {
  const operator = (given ?? osUser()).trim();
  if (operator === "" || operator.length > 64 || !/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/.test(operator)) {
    throw new UsageError("--actor must be 1 to 64 printable characters (who runs the command, for the audit trail)");
  }
  return { kind: "system", operator };
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): the uid still tells operators apart.
    return `uid:${process.getuid?.() ?? "unknown"}`;
  }
}

/** Runs the command line; resolves with the exit status. */
export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  const { env, stdout, stderr } = io;
  try {
    const { values, positionals } = parse(argv);
    if (positionals[0] === "help") return printHelp(positionals.slice(1), stdout);
    if (values.help === true) return printHelp(positionals, stdout);
    if (values.version === true) {
      stdout.write(`${serverVersion()}\n`);
      return 0;
    }
    if (positionals.length === 0) throw new UsageError(`no command given\n${USAGE}`);
    const { name, command, args } = resolveCommand(positionals);
    checkInvocation(name, command, args, values);
    if (command === BACKUP) {
      stdout.write(`${JSON.stringify(backupDatabase(loadConfig(env).databaseUrl, args[0]!))}\n`);
      return 0;
    }
    if (command === RISK_EVALUATE) {
      if (values.dataset === undefined) throw new UsageError("risk evaluate: --dataset is required");
      stdout.write(`${JSON.stringify(await evaluateDatasetCommand(values.dataset, values.policy, env))}\n`);
      return 0;
    }
    if (!isRunnable(command)) {
      try {
        await serve();
      } catch (error) {
        return reportServeRefusal(error, stderr);
      }
      return 0;
    }

    // `migrate` is how an operator creates a new SQLite database's directory; other commands refuse a missing one.
    const loaded = loadConfig(env);
    const config = name === "migrate" ? { ...loaded, databaseCreate: true } : loaded;
    stderr.write(`gatehouse: database ${describeDatabase(config.databaseUrl)}\n`);
    // Logs go to stderr: stdout carries only the command's JSON.
    const engine = await createEngine(config, createLogger("warn", { write: (line: string) => stderr.write(line) }));
    try {
      const actor = operatorActor(values.actor);
      const result = await command.run({ args, values, gatehouse: engine.gatehouse, applied: engine.storage.applied, readStdin: io.readStdin, actor });
      if (result instanceof JsonLines) {
        for await (const line of result.lines) stdout.write(`${JSON.stringify(line)}\n`);
      } else {
        stdout.write(`${JSON.stringify(result)}\n`);
      }
    } finally {
      await engine.close();
    }
    return 0;
  } catch (error) {
    return report(error, stderr);
  }
}

/**
 * `serve` writes to a JSON log stream: its start-up refusal is one JSON line too (level `fatal`), a configuration's
 * problems each an entry of `problems`, so a log collector reads it as it reads every other line.
 */
function reportServeRefusal(error: unknown, stderr: CliIo["stderr"]): number {
  const logger = createLogger("info", { write: (line: string) => stderr.write(line) });
  if (error instanceof ConfigError) logger.fatal({ problems: error.problems }, "invalid configuration: gatehouse refuses to start");
  else logger.fatal({ err: error }, "gatehouse could not start");
  return 1;
}

function report(error: unknown, stderr: CliIo["stderr"]): number {
  if (error instanceof UsageError) {
    stderr.write(`gatehouse: ${error.message}\n`);
    return 2;
  }
  if (error instanceof GatehouseError) {
    const violations = error.details.violations ?? [];
    stderr.write(`gatehouse: error (${error.kind}): ${error.message}\n${violations.map((v) => `  - ${v}\n`).join("")}`);
    return 1;
  }
  if (error instanceof ConfigError) {
    stderr.write(`gatehouse: ${error.message}\n`);
    return 1;
  }
  stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
