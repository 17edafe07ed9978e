import type { Membership, Org, OrgStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, MembershipsTable, OrgsTable } from "./schema.ts";

function toOrg(row: Selectable<OrgsTable>): Org {
  const org = { id: row.id, name: row.name, createdAt: fromDbBigint(row.created_at) };
  return row.slug === null ? org : { ...org, slug: row.slug };
}

function toMembership(row: Selectable<MembershipsTable>): Membership {
  return { orgId: row.org_id, userId: row.user_id, role: row.role };
}

export function createOrgRepository(db: Kysely<Database>, cache: PreparedQueryCache): OrgStore {
  // Every browser request runs this one.
  const selectMembership = preparedQuery(db, cache, "orgs.membership", 2, (orgId: string, userId: string) =>
    db.selectFrom("memberships").selectAll().where("org_id", "=", orgId).where("user_id", "=", userId),
  );
  return {
    async create(org) {
      await insertUnlessTaken(db.insertInto("orgs").values({ id: org.id, name: org.name, slug: org.slug ?? null, created_at: org.createdAt }));
    },

    async findById(id) {
      const row = await db.selectFrom("orgs").selectAll().where("id", "=", id).executeTakeFirst();
      return row === undefined ? null : toOrg(row);
    },

    async findBySlug(slug) {
      const row = await db.selectFrom("orgs").selectAll().where("slug", "=", slug).executeTakeFirst();
      return row === undefined ? null : toOrg(row);
    },

    async putMembership(membership) {
      await db
        .insertInto("memberships")
        .values({ org_id: membership.orgId, user_id: membership.userId, role: membership.role })
        .onConflict((conflict) => conflict.columns(["org_id", "user_id"]).doUpdateSet({ role: membership.role }))
        .execute();
    },

    async removeMembership(orgId, userId) {
      const result = await db.deleteFrom("memberships").where("org_id", "=", orgId).where("user_id", "=", userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async findMembership(orgId, userId) {
      const [row] = await selectMembership(orgId, userId);
      return row === undefined ? null : toMembership(row);
    },

    async list() {
      return (await db.selectFrom("orgs").selectAll().orderBy("created_at").orderBy("id").execute()).map(toOrg);
    },

    async listMemberships(orgId) {
      return (await db.selectFrom("memberships").selectAll().where("org_id", "=", orgId).orderBy("user_id").execute()).map(toMembership);
    },

    async listMembershipsOfUser(userId) {
      return (await db.selectFrom("memberships").selectAll().where("user_id", "=", userId).orderBy("org_id").execute()).map(toMembership);
    },
  };
}
