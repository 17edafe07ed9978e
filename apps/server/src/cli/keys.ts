/** `gatehouse keys …`: the access JWT signing keys. */
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { iso, type Command } from "./command.ts";

/** Signing keys' commands. */
export const KEYS_COMMANDS: Readonly<Record<string, Command>> = {
  "keys list": {
    summary: "the access JWT signing keys, oldest first, and where each stands now",
    params: {},
    options: {},
    output: '{"keys": [{"kid", "state" ("pending", "signing", "retiring", "retired"), "created_at", "activates_at"}]}',
    run: async ({ gatehouse }) => ({
      keys: (await gatehouse.tokens.listSigningKeys(SYSTEM_ACTOR)).map((key) => ({
        kid: key.kid,
        state: key.state,
        created_at: iso(key.createdAt),
        activates_at: iso(key.activatesAt),
      })),
    }),
  },
  "keys rotate": {
    summary:
      "add a new signing key for access JWTs: published at once, signing after one token lifetime and JWKS cache age; the old key stays published until its tokens expired (audited)",
    params: {},
    options: {},
    output: '{"kid", "activates_at", "retiring_kid"}',
    run: async ({ gatehouse }) => {
      await gatehouse.tokens.ensureSigningKey();
      const rotated = await gatehouse.tokens.rotateSigningKey(SYSTEM_ACTOR);
      return { kid: rotated.kid, activates_at: iso(rotated.activatesAt), retiring_kid: rotated.retiringKid };
    },
  },
};
