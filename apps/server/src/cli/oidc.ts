/** `gatehouse oidc …`: apps that sign their users in with Gatehouse. */
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { ORG_PARAM, UsageError, type Command } from "./command.ts";
import { orgIdOf } from "./references.ts";

/** The OpenID Provider's commands. */
export const OIDC_COMMANDS: Readonly<Record<string, Command>> = {
  "oidc client create": {
    summary: "register an app that signs its users in with Gatehouse (OpenID Connect, code + PKCE) for one org (audited)",
    params: { org: ORG_PARAM, name: "the app's name" },
    options: {
      "redirect-uri": ["<uri>", "required: an exact redirect URI, https or http on a loopback host (repeat it for several)"],
      "first-party": ["", "the org's own app: its members are not asked to consent"],
      public: ["", "a browser or native app that keeps no secret (PKCE alone)"],
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
      });
      return { client_id: created.clientId, client_secret: created.clientSecret };
    },
  },
};
