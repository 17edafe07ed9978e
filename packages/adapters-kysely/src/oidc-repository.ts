import type { EpochMs, OidcRecord, OidcStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, OidcRecordsTable } from "./schema.ts";

function toRecord(row: Selectable<OidcRecordsTable>): OidcRecord {
  return {
    model: row.model,
    id: row.id,
    payload: row.payload,
    grantId: row.grant_id,
    uid: row.uid,
    userCode: row.user_code,
    expiresAt: row.expires_at === null ? null : fromDbBigint(row.expires_at),
    consumedAt: row.consumed_at === null ? null : fromDbBigint(row.consumed_at),
  };
}

export function createOidcRepository(db: Kysely<Database>): OidcStore {
  const live = (model: string, now: EpochMs) =>
    db
      .selectFrom("oidc_records")
      .selectAll()
      .where("model", "=", model)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]));
  return {
    async upsert(record) {
      const values = {
        payload: record.payload,
        grant_id: record.grantId,
        uid: record.uid,
        user_code: record.userCode,
        expires_at: record.expiresAt,
      };
      await db
        .insertInto("oidc_records")
        .values({ model: record.model, id: record.id, ...values, consumed_at: null })
        .onConflict((conflict) => conflict.columns(["model", "id"]).doUpdateSet(values))
        .execute();
    },
    async find(model, id, now) {
      const row = await live(model, now).where("id", "=", id).executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },
    async findByUid(model, uid, now) {
      const row = await live(model, now).where("uid", "=", uid).limit(1).executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },
    async findByUserCode(model, userCode, now) {
      const row = await live(model, now).where("user_code", "=", userCode).limit(1).executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },
    async consume(model, id, at) {
      await db.updateTable("oidc_records").set({ consumed_at: at }).where("model", "=", model).where("id", "=", id).where("consumed_at", "is", null).execute();
    },
    async destroy(model, id) {
      await db.deleteFrom("oidc_records").where("model", "=", model).where("id", "=", id).execute();
    },
    async revokeByGrantId(grantId) {
      await db.deleteFrom("oidc_records").where("grant_id", "=", grantId).execute();
    },
    async listByModel(model, afterId, limit, now) {
      const page = afterId === null ? live(model, now) : live(model, now).where("id", ">", afterId);
      return (await page.orderBy("id").limit(limit).execute()).map(toRecord);
    },
  };
}
