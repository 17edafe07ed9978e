/** `gatehouse member …`: an org's members. */
import { parseOrgRole } from "@gatehouse/core";
import { ORG_PARAM, type Command } from "./command.ts";
import { orgIdOf, userIdOfEmail } from "./references.ts";

/** Members' commands. */
export const MEMBER_COMMANDS: Readonly<Record<string, Command>> = {
  "member add": {
    summary: 'add a verified account to the org, or email an invitation ("status": "invited")',
    params: { org: ORG_PARAM, email: "the account's email" },
    options: { role: ["member|admin", "the role (default: member)"] },
    output: 'added: {"status": "added", "org_id", "user_id", "role"}; invited: {"status": "invited", "org_id", "invitation_id", "email", "role"}',
    run: async ({ actor, args, values, gatehouse }) => {
      const role = parseOrgRole(values.role ?? "member");
      const added = await gatehouse.admin.addMember(actor, { orgId: await orgIdOf(gatehouse, args[0]!), email: args[1]!, role });
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
      const orgId = await orgIdOf(gatehouse, args[0]!);
      // An unknown email reads as no membership: removing never tells whether an account exists.
      const userId = await userIdOfEmail(gatehouse, actor, args[1]!, "membership not found");
      await gatehouse.admin.removeMember(actor, { orgId, userId });
      return { removed: true };
    },
  },
  "member list": {
    summary: "list the org's members",
    params: { org: ORG_PARAM },
    options: {},
    output: '{"members": [{"user_id", "email", "role"}]}',
    run: async ({ actor, args, gatehouse }) => ({
      members: (await gatehouse.admin.listMembers(actor, { orgId: await orgIdOf(gatehouse, args[0]!) })).map((m) => ({
        user_id: m.userId,
        email: m.email,
        role: m.role,
      })),
    }),
  },
};
