import type { RecoveryCodeStore } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { atomically } from "./atomically.ts";
import type { Database } from "./schema.ts";

export function createRecoveryCodeRepository(db: Kysely<Database>): RecoveryCodeStore {
  const countCodes = async (from: Kysely<Database>, userId: string) => {
    const row = await from
      .selectFrom("recovery_codes")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    async replace(userId, codes) {
      // Both statements in one transaction, so no reader sees half a set.
      await atomically(db, async (trx) => {
        await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
        if (codes.length === 0) return;
        await trx
          .insertInto("recovery_codes")
          .values(codes.map((code) => ({ user_id: userId, code_hash: code.codeHash, created_at: code.createdAt })))
          .execute();
      });
    },

    async consume(userId, codeHash) {
      return atomically(db, async (trx) => {
        const deleted = await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).where("code_hash", "=", codeHash).executeTakeFirst();
        return deleted.numDeletedRows > 0n ? await countCodes(trx, userId) : null;
      });
    },

    count(userId) {
      return countCodes(db, userId);
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("recovery_codes").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
