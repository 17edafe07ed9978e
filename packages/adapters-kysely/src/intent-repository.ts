import type { IntentStore, MfaIntent } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, MfaIntentsTable } from "./schema.ts";

function toIntent(row: Selectable<MfaIntentsTable>): MfaIntent {
  return {
    id: row.id,
    userId: row.user_id,
    orgId: row.org_id,
    deviceId: row.device_id,
    expiresAt: fromDbBigint(row.expires_at),
    createdAt: fromDbBigint(row.created_at),
  };
}

export function createIntentRepository(db: Kysely<Database>): IntentStore {
  return {
    async create(intent) {
      await insertUnlessTaken(
        db.insertInto("mfa_intents").values({
          id: intent.id,
          user_id: intent.userId,
          org_id: intent.orgId,
          device_id: intent.deviceId,
          expires_at: intent.expiresAt,
          created_at: intent.createdAt,
        }),
      );
    },

    async consume(id, now) {
      // Deleted whatever its expiry, so an expired intent cannot linger; only an unexpired one is handed out.
      const row = await db.deleteFrom("mfa_intents").where("id", "=", id).returningAll().executeTakeFirst();
      if (row === undefined) return null;
      const intent = toIntent(row);
      return intent.expiresAt > now ? intent : null;
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("mfa_intents").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
