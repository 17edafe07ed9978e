/** `gatehouse session …`: a user's live sessions, and signing them out. */
import { SYSTEM_ACTOR, type OperatorSessionView } from "@gatehouse/core";
import { ORG_PARAM, USER_PARAM, iso, type Command } from "./command.ts";
import { orgIdOf, userOf } from "./references.ts";

const SESSION_KEYS = "session_id, org_id, device_id, device_label, user_agent, last_address, amr, aal, created_at, last_seen_at, expires_at";

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

/** Sessions' commands. */
export const SESSION_COMMANDS: Readonly<Record<string, Command>> = {
  "session list": {
    summary: "the user's live sessions in every org: the device each signs in from, its user agent and last address",
    params: { user: USER_PARAM },
    options: {},
    output: `{"sessions": [{${SESSION_KEYS}}]}`,
    run: async ({ args, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await userOf(gatehouse, SYSTEM_ACTOR, args[0]!);
      return { sessions: (await admin.listSessionsOfUser(SYSTEM_ACTOR, { userId: user.id })).map(sessionToJson) };
    },
  },
  "session revoke": {
    summary: "sign the user out: end their sessions and their devices' trust, in every org or in one (the next sign-in needs MFA)",
    params: { user: USER_PARAM },
    options: { org: ["<org>", `only in this organization (${ORG_PARAM})`] },
    output: '{"user_id", "org_id" (null: every org), "revoked_count"}',
    run: async ({ actor, args, values, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await userOf(gatehouse, actor, args[0]!);
      if (values.org === undefined) {
        const { revokedCount } = await admin.revokeUserSessionsEverywhere(actor, { userId: user.id });
        return { user_id: user.id, org_id: null, revoked_count: revokedCount };
      }
      const orgId = await orgIdOf(gatehouse, values.org);
      const { revokedCount } = await admin.revokeUserSessions(actor, { orgId, userId: user.id });
      return { user_id: user.id, org_id: orgId, revoked_count: revokedCount };
    },
  },
};
