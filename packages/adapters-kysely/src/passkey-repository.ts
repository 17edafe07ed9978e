import type { PasskeyStore, WebAuthnFactor } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint, fromDbBigintOrNull, fromDbBool, toDbBool, type SqlDialect } from "./dialect-differences.ts";
import type { Database, WebAuthnFactorsTable } from "./schema.ts";

function toWebAuthnFactor(row: Selectable<WebAuthnFactorsTable>): WebAuthnFactor {
  return {
    id: row.id,
    userId: row.user_id,
    label: row.label,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: fromDbBigint(row.counter),
    transports: row.transports === "" ? [] : row.transports.split(","),
    aaguid: row.aaguid,
    backedUp: fromDbBool(row.backed_up),
    createdAt: fromDbBigint(row.created_at),
    lastUsedAt: fromDbBigintOrNull(row.last_used_at),
  };
}

export function createPasskeyRepository(db: Kysely<Database>, dialect: SqlDialect): PasskeyStore {
  return {
    async create(factor) {
      // ON CONFLICT DO NOTHING covers both keys: the id and the unique credential id.
      await insertUnlessTaken(
        db.insertInto("webauthn_factors").values({
          id: factor.id,
          user_id: factor.userId,
          label: factor.label,
          credential_id: factor.credentialId,
          public_key: factor.publicKey,
          counter: factor.counter,
          transports: factor.transports.join(","),
          aaguid: factor.aaguid,
          backed_up: toDbBool(dialect, factor.backedUp),
          created_at: factor.createdAt,
          last_used_at: factor.lastUsedAt,
        }),
      );
    },

    async list(userId) {
      const rows = await db.selectFrom("webauthn_factors").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute();
      return rows.map(toWebAuthnFactor);
    },

    async findByCredentialId(credentialId) {
      const row = await db.selectFrom("webauthn_factors").selectAll().where("credential_id", "=", credentialId).executeTakeFirst();
      return row === undefined ? null : toWebAuthnFactor(row);
    },

    async acceptCounter(id, counter, backedUp, now) {
      // One guarded UPDATE, as the TOTP step's: of concurrent writers of one counter the row lock lets one through.
      const result = await db
        .updateTable("webauthn_factors")
        .set({ counter, backed_up: toDbBool(dialect, backedUp), last_used_at: now })
        .where("id", "=", id)
        // A new count of 0 passes only a stored 0 (an authenticator that keeps no counter); any other must move forward.
        .where("counter", counter === 0 ? "=" : "<", counter)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async delete(userId, id) {
      const result = await db.deleteFrom("webauthn_factors").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async deleteByUser(userId) {
      const result = await db.deleteFrom("webauthn_factors").where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
