import type { BrowserPolicy, BrowserPolicyStore, VersionedBrowserPolicy } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, MembershipsTable } from "./schema.ts";

export function toVersionedPolicy(row: { policy: string; version: number }): VersionedBrowserPolicy {
  // Opaque JSON written by `put` from a policy the core had already validated.
  const policy = JSON.parse(row.policy) as BrowserPolicy;
  return { policy, version: row.version };
}

export function createBrowserPolicyRepository(db: Kysely<Database>, cache: PreparedQueryCache): BrowserPolicyStore {
  // Every browser request runs this one, the policy itself only when its version is new to the reader. Two scalar
  // subqueries in one statement: one round trip, one snapshot, and the same SQL on SQLite and PostgreSQL.
  const selectMembershipAndVersion = preparedQuery(db, cache, "browserPolicies.membershipAndVersion", 2, (orgId: string, userId: string) => {
    const query = sql<{ role: MembershipsTable["role"] | null; version: number | null }>`select
      (select role from memberships where org_id = ${orgId} and user_id = ${userId}) as role,
      (select version from browser_policies where org_id = ${orgId}) as version`;
    return { compile: () => query.compile(db) };
  });
  return {
    async get(orgId) {
      const row = await db.selectFrom("browser_policies").select(["policy", "version"]).where("org_id", "=", orgId).executeTakeFirst();
      return row === undefined ? null : toVersionedPolicy(row);
    },

    async membershipAndVersion(orgId, userId) {
      const [row] = await selectMembershipAndVersion(orgId, userId);
      if (row === undefined) throw new Error("browserPolicies.membershipAndVersion: the select returned no row");
      return { membership: row.role === null ? null : { orgId, userId, role: row.role }, version: row.version };
    },

    async put(orgId, policy) {
      // One upsert: the database increments the version, so concurrent puts never share one.
      const row = await db
        .insertInto("browser_policies")
        .values({ org_id: orgId, policy: JSON.stringify(policy), version: 1 })
        .onConflict((conflict) =>
          conflict.column("org_id").doUpdateSet((eb) => ({ policy: eb.ref("excluded.policy"), version: eb("browser_policies.version", "+", 1) })),
        )
        .returning("version")
        .executeTakeFirstOrThrow();
      // The stored text is this policy's JSON: reading it back and parsing megabytes again would only return an equal copy.
      return { policy, version: row.version };
    },
  };
}
