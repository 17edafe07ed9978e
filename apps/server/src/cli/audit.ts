/** `gatehouse audit …`: the audit trail, one event per line. */
import { auditEventToJson } from "@gatehouse/contract";
import { MAX_AUDIT_PAGE_SIZE, SYSTEM_ACTOR, type AuditEventsQuery, type Gatehouse } from "@gatehouse/core";
import { JsonLines, ORG_PARAM, parseLimitOption, parseTimeOption, type Command } from "./command.ts";
import { orgIdOf } from "./references.ts";

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

/** The audit trail's commands. */
export const AUDIT_COMMANDS: Readonly<Record<string, Command>> = {
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
};
