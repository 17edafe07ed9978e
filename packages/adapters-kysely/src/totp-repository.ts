import type { TotpFactor, TotpStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint, fromDbBigintOrNull } from "./dialect-differences.ts";
import type { Database, TotpFactorsTable } from "./schema.ts";

function toTotpFactor(row: Selectable<TotpFactorsTable>): TotpFactor {
  return {
    id: row.id,
    userId: row.user_id,
    label: row.label,
    sealedSecret: row.sealed_secret,
    lastStep: fromDbBigintOrNull(row.last_step),
    confirmedAt: fromDbBigintOrNull(row.confirmed_at),
    createdAt: fromDbBigint(row.created_at),
    lastUsedAt: fromDbBigintOrNull(row.last_used_at),
  };
}

export function createTotpRepository(db: Kysely<Database>): TotpStore {
  return {
    async create(factor) {
      await insertUnlessTaken(
        db.insertInto("totp_factors").values({
          id: factor.id,
          user_id: factor.userId,
          label: factor.label,
          sealed_secret: factor.sealedSecret,
          last_step: factor.lastStep,
          confirmed_at: factor.confirmedAt,
          created_at: factor.createdAt,
          last_used_at: factor.lastUsedAt,
        }),
      );
    },

    async find(id) {
      const row = await db.selectFrom("totp_factors").selectAll().where("id", "=", id).executeTakeFirst();
      return row === undefined ? null : toTotpFactor(row);
    },

    async list(userId) {
      const rows = await db.selectFrom("totp_factors").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute();
      return rows.map(toTotpFactor);
    },

    async confirm(id, now) {
      const result = await db.updateTable("totp_factors").set({ confirmed_at: now }).where("id", "=", id).where("confirmed_at", "is", null).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async acceptStep(id, step, now) {
      // One guarded UPDATE: the row lock orders concurrent writers, and the loser re-reads a last_step that no longer passes.
      const result = await db
        .updateTable("totp_factors")
        .set({ last_step: step, last_used_at: now })
        .where("id", "=", id)
        .where((eb) => eb.or([eb("last_step", "is", null), eb("last_step", "<", step)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async delete(userId, id) {
      const result = await db.deleteFrom("totp_factors").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("totp_factors").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
