import type { SignInNetworkStore } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.ts";

export function createSignInNetworkRepository(db: Kysely<Database>): SignInNetworkStore {
  return {
    async record(userId, network, at, forgetBefore) {
      await db.deleteFrom("sign_in_networks").where("user_id", "=", userId).where("seen_at", "<", forgetBefore).execute();
      await db
        .insertInto("sign_in_networks")
        .values({ user_id: userId, network, seen_at: at })
        .onConflict((oc) =>
          // The later time wins, whichever sign-in commits last.
          oc.columns(["user_id", "network"]).doUpdateSet({
            seen_at: sql<number>`CASE WHEN excluded.seen_at > sign_in_networks.seen_at THEN excluded.seen_at ELSE sign_in_networks.seen_at END`,
          }),
        )
        .execute();
    },

    async seenSince(userId, network, since) {
      const row = await db
        .selectFrom("sign_in_networks")
        .select("seen_at")
        .where("user_id", "=", userId)
        .where("network", "=", network)
        .where("seen_at", ">=", since)
        .executeTakeFirst();
      return row !== undefined;
    },

    async forgetUser(userId) {
      const result = await db.deleteFrom("sign_in_networks").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
