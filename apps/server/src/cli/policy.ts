/** `gatehouse policy …`: an org's browser policy. */
import { browserPolicyDraftFromJson, browserPolicyToJson } from "@gatehouse/contract";
import { invalidArgument } from "@gatehouse/core";
import { ORG_PARAM, UsageError, parseJsonOption, type Command } from "./command.ts";
import { orgIdOf } from "./references.ts";

const POLICY_KEYS =
  '{"access_control": {"allowed_domains": [...], "blocked_domains": [...], "default_action": "allow"|"deny", "wildcard_supported": bool}, "action_restrictions": {"allowed_actions": ["navigate"|"download"|"upload"|"copy_paste", ...], "read_only_mode": bool}}';

/** Browser policy commands. */
export const POLICY_COMMANDS: Readonly<Record<string, Command>> = {
  "policy get": {
    summary: "show the org's browser policy",
    params: { org: ORG_PARAM },
    options: {},
    output: POLICY_KEYS,
    run: async ({ actor, args, gatehouse }) =>
      browserPolicyToJson(await gatehouse.admin.getOrgBrowserPolicy(actor, { orgId: await orgIdOf(gatehouse, args[0]!) })),
  },
  "policy set": {
    summary: "replace the org's browser policy",
    params: { org: ORG_PARAM },
    options: { json: ["'{...}'", `required: the whole policy, ${POLICY_KEYS}`] },
    output: "the stored policy, keys as --json",
    run: async ({ actor, args, values, gatehouse }) => {
      if (values.json === undefined) throw new UsageError('policy set needs --json \'{"access_control": {...}, "action_restrictions": {...}}\'');
      const policy = browserPolicyDraftFromJson(parseJsonOption(values.json, "policy"), invalidArgument);
      return browserPolicyToJson(await gatehouse.admin.updateOrgBrowserPolicy(actor, { orgId: await orgIdOf(gatehouse, args[0]!), policy }));
    },
  },
};
