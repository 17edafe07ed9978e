/** `gatehouse sms …`: where OTPs may be sent, and the traffic they made. */
import { smsDestinationPolicyPatchFromJson, smsDestinationPolicyToJson, smsTrafficRowToJson } from "@gatehouse/contract";
import { invalidArgument } from "@gatehouse/core";
import { UsageError, parseJsonOption, parseTimeOption, type Command } from "./command.ts";
import { orgIdOf } from "./references.ts";

/** The SMS guard's commands. */
export const SMS_COMMANDS: Readonly<Record<string, Command>> = {
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
      const policy =
        patch === undefined ? await admin.getSmsDestinationPolicy(actor, { orgId }) : await admin.updateSmsDestinationPolicy(actor, { orgId, patch });
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
      return { rows: (await gatehouse.admin.getSmsTrafficReport(actor, { from: since, to: until })).map(smsTrafficRowToJson) };
    },
  },
};
