import type { WebAuthnChallenge, WebAuthnChallengeStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, WebAuthnChallengesTable } from "./schema.ts";

function toWebAuthnChallenge(row: Selectable<WebAuthnChallengesTable>): WebAuthnChallenge {
  return {
    id: row.id,
    ceremony: row.ceremony,
    userId: row.user_id,
    orgId: row.org_id,
    challenge: row.challenge,
    label: row.label,
    expiresAt: fromDbBigint(row.expires_at),
    createdAt: fromDbBigint(row.created_at),
  };
}

export function createWebAuthnChallengeRepository(db: Kysely<Database>): WebAuthnChallengeStore {
  return {
    async put(challenge) {
      const columns = {
        ceremony: challenge.ceremony,
        user_id: challenge.userId,
        org_id: challenge.orgId,
        challenge: challenge.challenge,
        label: challenge.label,
        expires_at: challenge.expiresAt,
        created_at: challenge.createdAt,
      };
      await db
        .insertInto("webauthn_challenges")
        .values({ id: challenge.id, ...columns })
        .onConflict((conflict) => conflict.column("id").doUpdateSet(columns))
        .execute();
    },

    async consume(id, ceremony, now) {
      // Deleted whatever its expiry, so an expired one cannot linger; only an unexpired one is handed out.
      const row = await db.deleteFrom("webauthn_challenges").where("id", "=", id).where("ceremony", "=", ceremony).returningAll().executeTakeFirst();
      if (row === undefined) return null;
      const challenge = toWebAuthnChallenge(row);
      return challenge.expiresAt > now ? challenge : null;
    },

    async deleteByUser(userId) {
      await db.deleteFrom("webauthn_challenges").where("user_id", "=", userId).execute();
    },
  };
}
