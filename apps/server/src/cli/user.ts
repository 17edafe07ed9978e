/** `gatehouse user …`: accounts. */
import { maskPhone, type User } from "@gatehouse/core";
import { USER_PARAM, UsageError, iso, type Command } from "./command.ts";
import { userIdOf, userOf } from "./references.ts";

const USER_KEYS = "user_id, email, display_name, platform_admin, email_verified_at, phone (masked), phone_verified, disabled_at, created_at";

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

/** Accounts' commands. */
export const USER_COMMANDS: Readonly<Record<string, Command>> = {
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
      const user = await userOf(gatehouse, actor, args[0]!);
      const orgs = [];
      for (const org of await admin.listOrgs(actor)) {
        const member = (await admin.listMembers(actor, { orgId: org.id })).find((m) => m.userId === user.id);
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
      await gatehouse.admin.disableUser(actor, { userId: await userIdOf(gatehouse, actor, args[0]!, "no user with this email") });
      return { disabled: true };
    },
  },
  "user enable": {
    summary: "enable a disabled account again (its next sign-in needs MFA)",
    params: { user: USER_PARAM },
    options: {},
    output: '{"disabled": false}',
    run: async ({ actor, args, gatehouse }) => {
      await gatehouse.admin.enableUser(actor, { userId: await userIdOf(gatehouse, actor, args[0]!, "no user with this email") });
      return { disabled: false };
    },
  },
};
