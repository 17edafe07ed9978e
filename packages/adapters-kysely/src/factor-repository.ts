import type { FactorStore, TotpFactor, WebAuthnChallenge, WebAuthnFactor } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { atomically } from "./atomically.ts";
import { fromDbBigint, fromDbBool, toDbBool, type SqlDialect } from "./dialect-differences.ts";
import type { Database, TotpFactorsTable, WebAuthnChallengesTable, WebAuthnFactorsTable } from "./schema.ts";

const nullableMs = (value: Selectable<TotpFactorsTable>["last_step"]) => (value === null ? null : fromDbBigint(value));

function toTotpFactor(row: Selectable<TotpFactorsTable>): TotpFactor {
  return {
    id: row.id,
    userId: row.user_id,
    label: row.label,
    sealedSecret: row.sealed_secret,
    lastStep: nullableMs(row.last_step),
    confirmedAt: nullableMs(row.confirmed_at),
    createdAt: fromDbBigint(row.created_at),
    lastUsedAt: nullableMs(row.last_used_at),
  };
}

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
    lastUsedAt: nullableMs(row.last_used_at),
  };
}

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

export function createFactorRepository(db: Kysely<Database>, dialect: SqlDialect): FactorStore {
  const countCodes = async (from: Kysely<Database>, userId: string) => {
    const row = await from
      .selectFrom("recovery_codes")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    async createTotp(factor) {
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

    async findTotp(id) {
      const row = await db.selectFrom("totp_factors").selectAll().where("id", "=", id).executeTakeFirst();
      return row === undefined ? null : toTotpFactor(row);
    },

    async listTotp(userId) {
      const rows = await db.selectFrom("totp_factors").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute();
      return rows.map(toTotpFactor);
    },

    async confirmTotp(id, now) {
      const result = await db.updateTable("totp_factors").set({ confirmed_at: now }).where("id", "=", id).where("confirmed_at", "is", null).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async acceptTotpStep(id, step, now) {
      // One guarded UPDATE: the row lock orders concurrent writers, and the loser re-reads a last_step that no longer passes.
      const result = await db
        .updateTable("totp_factors")
        .set({ last_step: step, last_used_at: now })
        .where("id", "=", id)
        .where((eb) => eb.or([eb("last_step", "is", null), eb("last_step", "<", step)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async deleteTotp(userId, id) {
      const result = await db.deleteFrom("totp_factors").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async replaceRecoveryCodes(userId, codes) {
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

    async consumeRecoveryCode(userId, codeHash) {
      return atomically(db, async (trx) => {
        const deleted = await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).where("code_hash", "=", codeHash).executeTakeFirst();
        return deleted.numDeletedRows > 0n ? await countCodes(trx, userId) : null;
      });
    },

    countRecoveryCodes(userId) {
      return countCodes(db, userId);
    },

    async createWebAuthn(factor) {
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

    async listWebAuthn(userId) {
      const rows = await db.selectFrom("webauthn_factors").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute();
      return rows.map(toWebAuthnFactor);
    },

    async findWebAuthnByCredentialId(credentialId) {
      const row = await db.selectFrom("webauthn_factors").selectAll().where("credential_id", "=", credentialId).executeTakeFirst();
      return row === undefined ? null : toWebAuthnFactor(row);
    },

    async acceptWebAuthnCounter(id, counter, backedUp, now) {
      // One guarded UPDATE, as acceptTotpStep: of concurrent writers of one counter the row lock lets one through.
      const result = await db
        .updateTable("webauthn_factors")
        .set({ counter, backed_up: toDbBool(dialect, backedUp), last_used_at: now })
        .where("id", "=", id)
        // A new count of 0 passes only a stored 0 (an authenticator that keeps no counter); any other must move forward.
        .where("counter", counter === 0 ? "=" : "<", counter)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async deleteWebAuthn(userId, id) {
      const result = await db.deleteFrom("webauthn_factors").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async putWebAuthnChallenge(challenge) {
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

    async consumeWebAuthnChallenge(id, ceremony, now) {
      // Deleted whatever its expiry, so an expired one cannot linger; only an unexpired one is handed out.
      const row = await db.deleteFrom("webauthn_challenges").where("id", "=", id).where("ceremony", "=", ceremony).returningAll().executeTakeFirst();
      if (row === undefined) return null;
      const challenge = toWebAuthnChallenge(row);
      return challenge.expiresAt > now ? challenge : null;
    },

    async deleteAllByUser(userId) {
      return atomically(db, async (trx) => {
        const factors = await trx.deleteFrom("totp_factors").where("user_id", "=", userId).executeTakeFirst();
        const passkeys = await trx.deleteFrom("webauthn_factors").where("user_id", "=", userId).executeTakeFirst();
        const codes = await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).executeTakeFirst();
        await trx.deleteFrom("webauthn_challenges").where("user_id", "=", userId).execute();
        return Number(factors.numDeletedRows) + Number(passkeys.numDeletedRows) + Number(codes.numDeletedRows);
      });
    },
  };
}
