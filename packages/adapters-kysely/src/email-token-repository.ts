import type { EmailToken, EmailTokenStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, EmailTokensTable } from "./schema.ts";

function toEmailToken(row: Selectable<EmailTokensTable>): EmailToken {
  const token: EmailToken = {
    tokenHash: row.token_hash,
    purpose: row.purpose,
    userId: row.user_id,
    expiresAt: fromDbBigint(row.expires_at),
    createdAt: fromDbBigint(row.created_at),
  };
  return row.registrant_proof_hash === null ? token : { ...token, registrantProofHash: row.registrant_proof_hash };
}

export function createEmailTokenRepository(db: Kysely<Database>): EmailTokenStore {
  return {
    async create(token) {
      await insertUnlessTaken(
        db.insertInto("email_tokens").values({
          token_hash: token.tokenHash,
          purpose: token.purpose,
          user_id: token.userId,
          expires_at: token.expiresAt,
          created_at: token.createdAt,
          registrant_proof_hash: token.registrantProofHash ?? null,
        }),
      );
    },

    async find(tokenHash, purpose, now) {
      const row = await db
        .selectFrom("email_tokens")
        .selectAll()
        .where("token_hash", "=", tokenHash)
        .where("purpose", "=", purpose)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return row === undefined ? null : toEmailToken(row);
    },

    async consume(tokenHash, purpose, now) {
      // Deleted whatever its expiry, so an expired token cannot linger; only an unexpired one is handed out.
      const row = await db.deleteFrom("email_tokens").where("token_hash", "=", tokenHash).where("purpose", "=", purpose).returningAll().executeTakeFirst();
      if (row === undefined) return null;
      const token = toEmailToken(row);
      return token.expiresAt > now ? token : null;
    },

    async deleteByUser(userId, purpose) {
      const result = await db.deleteFrom("email_tokens").where("user_id", "=", userId).where("purpose", "=", purpose).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async hasLive(userId, purpose, now) {
      const row = await db
        .selectFrom("email_tokens")
        .select("token_hash")
        .where("user_id", "=", userId)
        .where("purpose", "=", purpose)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
