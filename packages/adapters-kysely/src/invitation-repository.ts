import type { Invitation, InvitationStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { failOnDuplicate } from "./already-exists.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, InvitationsTable } from "./schema.ts";

function toInvitation(row: Selectable<InvitationsTable>): Invitation {
  return {
    id: row.id,
    orgId: row.org_id,
    email: row.email,
    role: row.role,
    tokenHash: row.token_hash,
    invitedBy: row.invited_by,
    expiresAt: fromDbBigint(row.expires_at),
    createdAt: fromDbBigint(row.created_at),
  };
}

export function createInvitationRepository(db: Kysely<Database>): InvitationStore {
  return {
    async put(invitation) {
      const row = {
        id: invitation.id,
        org_id: invitation.orgId,
        email: invitation.email,
        role: invitation.role,
        token_hash: invitation.tokenHash,
        invited_by: invitation.invitedBy,
        expires_at: invitation.expiresAt,
        created_at: invitation.createdAt,
      };
      // One statement: the (org_id, email) conflict replaces the row, id and token included; a taken id or token hash is a unique violation.
      await failOnDuplicate(() =>
        db
          .insertInto("invitations")
          .values(row)
          .onConflict((conflict) =>
            conflict.columns(["org_id", "email"]).doUpdateSet({
              id: row.id,
              role: row.role,
              token_hash: row.token_hash,
              invited_by: row.invited_by,
              expires_at: row.expires_at,
              created_at: row.created_at,
            }),
          )
          .execute(),
      );
    },

    async findByTokenHash(tokenHash, now) {
      const row = await db.selectFrom("invitations").selectAll().where("token_hash", "=", tokenHash).where("expires_at", ">", now).executeTakeFirst();
      return row === undefined ? null : toInvitation(row);
    },

    async consume(tokenHash, now) {
      const row = await db.deleteFrom("invitations").where("token_hash", "=", tokenHash).returningAll().executeTakeFirst();
      if (row === undefined) return null;
      const invitation = toInvitation(row);
      return invitation.expiresAt > now ? invitation : null;
    },

    async listByOrg(orgId, now) {
      const rows = await db
        .selectFrom("invitations")
        .selectAll()
        .where("org_id", "=", orgId)
        .where("expires_at", ">", now)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(toInvitation);
    },

    async delete(orgId, invitationId) {
      const result = await db.deleteFrom("invitations").where("id", "=", invitationId).where("org_id", "=", orgId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
