import type { BrowserPolicy, BrowserPolicyStore, VersionedBrowserPolicy } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

export function toVersionedPolicy(row: { policy: string; version: number }): VersionedBrowserPolicy {
  // Opaque JSON written by `put` from a policy the core had already validated.
  const policy = JSON.parse(row.policy) as BrowserPolicy;
  return { policy, version: row.version };
}

export function createBrowserPolicyRepository(db: Kysely<Database>, cache: PreparedQueryCache): BrowserPolicyStore {
  // Every browser request runs this one.
  const selectIfChanged = preparedQuery(db, cache, "browserPolicies.ifChanged", 2, (orgId: string, knownVersion: number) =>
    db
      .selectFrom("browser_policies")
      .select((eb) => [
        "version",
        // The policy column only crosses the wire (and meets JSON.parse) when the caller's copy is stale.
        eb
          .case()
          .when("version", "=", knownVersion)
          .then(sql<string | null>`null`)
          .else(eb.ref("policy"))
          .end()
          .as("policy"),
      ])
      .where("org_id", "=", orgId),
  );
  return {
    async get(orgId) {
      const row = await db.selectFrom("browser_policies").select(["policy", "version"]).where("org_id", "=", orgId).executeTakeFirst();
      return row === undefined ? null : toVersionedPolicy(row);
    },

    async getIfChanged(orgId, knownVersion) {
      const [row] = await selectIfChanged(orgId, knownVersion);
      if (row === undefined) return null;
      return row.policy === null ? "unchanged" : toVersionedPolicy({ policy: row.policy, version: row.version });
    },

    async put(orgId, policy) {
      // One upsert: the database increments the version, so concurrent puts never share one.
      const row = await db
        .insertInto("browser_policies")
        .values({ org_id: orgId, policy: JSON.stringify(policy), version: 1 })
        .onConflict((conflict) =>
          conflict.column("org_id").doUpdateSet((eb) => ({ policy: eb.ref("excluded.policy"), version: eb("browser_policies.version", "+", 1) })),
        )
        .returning(["policy", "version"])
        .executeTakeFirstOrThrow();
      return toVersionedPolicy(row);
    },
  };
}
