/** `gatehouse risk …`: an org's risk policy, the judged sign-ins, and a replay of a login history. */
import { riskEventToJson } from "@gatehouse/contract";
import { MAX_RISK_EVENTS_PAGE, riskPolicyToJson, SYSTEM_ACTOR } from "@gatehouse/core";
import { readFileSync } from "node:fs";
import { JsonLines, ORG_PARAM, UsageError, parseJsonOption, parseLimitOption, parseSinceOption, type Command, type CommandShape } from "./command.ts";
import { orgIdOf, userOf } from "./references.ts";

/** `risk evaluate` replays a file through the engine in memory: no database. */
export const RISK_EVALUATE: CommandShape = {
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

/** The risk engine's commands on the database (`risk evaluate` needs none: see RISK_EVALUATE). */
export const RISK_COMMANDS: Readonly<Record<string, Command>> = {
  "risk policy get": {
    summary: "show the org's risk policy (the default, in audit mode, until one is set)",
    params: { org: ORG_PARAM },
    options: {},
    output: RISK_POLICY_KEYS,
    run: async ({ args, gatehouse }) => riskPolicyToJson(await gatehouse.admin.getOrgRiskPolicy(SYSTEM_ACTOR, { orgId: await orgIdOf(gatehouse, args[0]!) })),
  },
  "risk policy set": {
    summary: "change the org's risk policy: the fields given replace the current ones, validated whole (audited)",
    params: { org: ORG_PARAM },
    options: { json: ["'{...}'", `required: any of ${RISK_POLICY_KEYS}`] },
    output: "the stored policy, keys as --json",
    run: async ({ args, values, gatehouse }) => {
      if (values.json === undefined) throw new UsageError('risk policy set needs --json \'{"mode": "enforce", ...}\'');
      const orgId = await orgIdOf(gatehouse, args[0]!);
      return riskPolicyToJson(await gatehouse.admin.updateOrgRiskPolicy(SYSTEM_ACTOR, { orgId, patch: parseJsonOption(values.json, "risk policy") }));
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
      "per line: id, at, org_id, user_id, mode, decision, applied, score, signals [{signal, value, user_seen, user_total, platform_seen, contribution, code}], rules [{code, decision, detail}], sign_in and previous {at, ip, country, asn, location, browser, os, device_type, rtt_ms}, answer {kind: true_positive|false_positive, at} or null",
    run: async ({ values, gatehouse }) => {
      const limit = Math.min(parseLimitOption(values.limit), MAX_RISK_EVENTS_PAGE);
      const orgId = values.org === undefined ? null : await orgIdOf(gatehouse, values.org);
      const userId = values.user === undefined ? undefined : (await userOf(gatehouse, SYSTEM_ACTOR, values.user)).id;
      const events = await gatehouse.admin.listRiskEvents(SYSTEM_ACTOR, { orgId, limit, ...(userId === undefined ? {} : { userId }) });
      return new JsonLines(
        (async function* () {
          for (const event of events) yield riskEventToJson(event);
        })(),
      );
    },
  },
  "risk replay": {
    summary: "the stored risk events since a time decided again under a candidate policy, as enforce would decide them; changes nothing",
    params: {},
    options: {
      since: ["<30d|12h|iso>", "required: events at or after, as a span back from now or a time"],
      policy: ["<file.json>", "required: the candidate, as gatehouse risk policy set takes it (what it leaves out: the built-in default)"],
      org: ["<org>", `${ORG_PARAM} (default: every org)`],
      limit: ["<n>", "at most n event lines (default: every one stepped up or blocked)"],
    },
    output:
      'first line {"summary": {events, decisions and recorded: {allow, mfa, phishing_resistant, block}, raised, lowered, truncated}, "policy"}; then per event stepped up or blocked, newest first: id, at, org_id, user_id, recorded, decision, score, rules [{code, decision, detail}], sign_in',
    run: async ({ values, gatehouse }) => {
      const since = parseSinceOption(values.since, Date.now());
      if (since === undefined || values.policy === undefined) throw new UsageError("risk replay needs --since and --policy");
      let candidate: unknown;
      try {
        candidate = JSON.parse(readFileSync(values.policy, "utf8")) as unknown;
      } catch {
        throw new UsageError(`--policy ${values.policy} is not a readable JSON file`);
      }
      const limit = parseLimitOption(values.limit);
      const orgId = values.org === undefined ? null : await orgIdOf(gatehouse, values.org);
      const replay = await gatehouse.admin.replayRiskPolicy(SYSTEM_ACTOR, { orgId, since, policy: candidate });
      return new JsonLines(
        (async function* () {
          yield { summary: replay.summary, policy: riskPolicyToJson(replay.policy) };
          for (const { event, decision, rules } of replay.challenged.slice(0, limit)) {
            const { id, at, org_id, user_id, score, sign_in } = riskEventToJson(event);
            yield { id, at, org_id, user_id, recorded: event.decision, decision, score, rules, sign_in };
          }
        })(),
      );
    },
  },
};
