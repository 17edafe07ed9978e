/** `gatehouse oidc …`: apps that sign their users in with Gatehouse. */
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { iso, ORG_PARAM, UsageError, type Command } from "./command.ts";
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
      pairwise: ["", "a pairwise `sub` for this app's sector (its redirect URIs' one host) instead of the user id"],
      "backchannel-logout-uri": ["<uri>", "where the app gets a logout token when the Gatehouse session its sign-in came from ends"],
      "post-logout-redirect-uri": ["<uri>", "where the app's logout request may send the browser afterwards (repeat it for several)"],
    },
    output: '{"client_id", "client_secret" (shown this once: only its hash is stored; null for --public)}',
    run: async ({ args, values, gatehouse }) => {
      const redirectUris = values["redirect-uri"] ?? [];
      if (redirectUris.length === 0) throw new UsageError("oidc client create needs --redirect-uri <uri>");
      const created = await gatehouse.oidc.createClient(SYSTEM_ACTOR, {
        orgId: await orgIdOf(gatehouse, args[0]!),
        name: args[1]!,
        redirectUris,
        firstParty: values["first-party"] === true,
        public: values.public === true,
        pairwise: values.pairwise === true,
        ...(values["backchannel-logout-uri"] === undefined ? {} : { backchannelLogoutUri: values["backchannel-logout-uri"] }),
        postLogoutRedirectUris: values["post-logout-redirect-uri"] ?? [],
      });
      return { client_id: created.clientId, client_secret: created.clientSecret };
    },
  },
  "oidc client list": {
    summary: "the org's OpenID Connect clients, by client id (never a secret)",
    params: { org: ORG_PARAM },
    options: {},
    output: '{"clients": [{"client_id", "name", "redirect_uris", "first_party", "public", "pairwise", "created_at"}]}',
    run: async ({ args, gatehouse }) => ({
      clients: (await gatehouse.oidc.listClients(SYSTEM_ACTOR, { orgId: await orgIdOf(gatehouse, args[0]!) })).map((client) => ({
        client_id: client.clientId,
        name: client.name,
        redirect_uris: client.redirectUris,
        first_party: client.firstParty,
        public: client.public,
        pairwise: client.pairwise,
        created_at: iso(client.createdAt * 1000),
      })),
    }),
  },
  "oidc client delete": {
    summary: "delete an OpenID Connect client: its codes and tokens stop working at their next use (audited)",
    params: { client: "the client id" },
    options: {},
    output: '{"deleted": "<client id>"}',
    run: async ({ args, gatehouse }) => {
      await gatehouse.oidc.deleteClient(SYSTEM_ACTOR, { clientId: args[0]! });
      return { deleted: args[0] };
    },
  },
};
