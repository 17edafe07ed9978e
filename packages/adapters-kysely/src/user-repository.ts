import type { User, UserStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint, fromDbBool, toDbBool, type SqlDialect } from "./dialect-differences.ts";
import { preparedQuery, preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, UsersTable } from "./schema.ts";

export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    passwordHash: row.password_hash,
    phone: row.phone,
    phoneVerified: fromDbBool(row.phone_verified),
    platformAdmin: fromDbBool(row.platform_admin),
    createdAt: fromDbBigint(row.created_at),
    disabledAt: row.disabled_at === null ? null : fromDbBigint(row.disabled_at),
    emailVerifiedAt: row.email_verified_at === null ? null : fromDbBigint(row.email_verified_at),
  };
}

export function createUserRepository(db: Kysely<Database>, dialect: SqlDialect, cache: PreparedQueryCache): UserStore {
  // The sign-in flow's statements, prepared (see preparedQuery).
  const selectById = preparedQuery(db, cache, "users.byId", 1, (id: string) => db.selectFrom("users").selectAll().where("id", "=", id));
  const selectByEmail = preparedQuery(db, cache, "users.byEmail", 1, (email: string) => db.selectFrom("users").selectAll().where("email", "=", email));
  const updateVerifiedPhone = preparedStatement(db, cache, "users.setVerifiedPhone", 2, (userId: string, phone: string) =>
    db
      .updateTable("users")
      .set({ phone, phone_verified: toDbBool(dialect, true) })
      .where("id", "=", userId)
      .where("phone_verified", "=", toDbBool(dialect, false)),
  );
  return {
    async create(user) {
      await insertUnlessTaken(
        db.insertInto("users").values({
          id: user.id,
          email: user.email,
          display_name: user.displayName,
          password_hash: user.passwordHash,
          phone: user.phone,
          phone_verified: toDbBool(dialect, user.phoneVerified),
          platform_admin: toDbBool(dialect, user.platformAdmin),
          created_at: user.createdAt,
          disabled_at: user.disabledAt ?? null,
          email_verified_at: user.emailVerifiedAt,
        }),
      );
    },

    async findById(id) {
      const [row] = await selectById(id);
      return row === undefined ? null : toUser(row);
    },

    async findByEmail(email) {
      const [row] = await selectByEmail(email);
      return row === undefined ? null : toUser(row);
    },

    async list() {
      return (await db.selectFrom("users").selectAll().orderBy("created_at").orderBy("id").execute()).map(toUser);
    },

    async setVerifiedPhone(userId, phone) {
      const result = await updateVerifiedPhone(userId, phone);
      return (result.numAffectedRows ?? 0n) > 0n;
    },

    async clearPhone(userId) {
      const result = await db
        .updateTable("users")
        .set({ phone: null, phone_verified: toDbBool(dialect, false) })
        .where("id", "=", userId)
        .where((eb) => eb.or([eb("phone", "is not", null), eb("phone_verified", "=", toDbBool(dialect, true))]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async replacePasswordHash(userId, expectedHash, newHash) {
      const result = await db
        .updateTable("users")
        .set({ password_hash: newHash })
        .where("id", "=", userId)
        .where("password_hash", "=", expectedHash)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async setDisabled(userId, disabledAt) {
      const result = await db
        .updateTable("users")
        .set({ disabled_at: disabledAt })
        .where("id", "=", userId)
        .where("disabled_at", disabledAt === null ? "is not" : "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async setPasswordHash(userId, newHash) {
      const result = await db.updateTable("users").set({ password_hash: newHash }).where("id", "=", userId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async markEmailVerified(userId, now) {
      const result = await db
        .updateTable("users")
        .set({ email_verified_at: now })
        .where("id", "=", userId)
        .where("email_verified_at", "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async reclaimUnverified(userId, newHash, now) {
      const result = await db
        .updateTable("users")
        .set({ password_hash: newHash, display_name: "", phone: null, phone_verified: toDbBool(dialect, false), email_verified_at: now })
        .where("id", "=", userId)
        .where("email_verified_at", "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async restartRegistration(userId, newHash, displayName) {
      const result = await db
        .updateTable("users")
        .set({ password_hash: newHash, display_name: displayName })
        .where("id", "=", userId)
        .where("email_verified_at", "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
