/** `gatehouse client …`: resource servers that introspect access tokens. */
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { UsageError, type Command } from "./command.ts";

/** Resource servers' commands. */
export const CLIENT_COMMANDS: Readonly<Record<string, Command>> = {
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
};
