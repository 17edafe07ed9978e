import type { BrowserPolicy, BrowserPolicyStore, VersionedBrowserPolicy } from "@gatehouse/core";
import type { Kysely } from "kysely";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

export function toVersionedPolicy(row: { policy: string; version: number }): VersionedBrowserPolicy {
  // Opaque JSON written by `put` from a policy the core had already validated.
  const policy = JSON.parse(row.policy) as BrowserPolicy;
  return { policy, version: row.version };
}

export function createBrowserPolicyRepository(db: Kysely<Database>, cache: PreparedQueryCache): BrowserPolicyStore {
  // Every browser request runs this one: the policy itself is read only when its version is new to the reader.
  const selectVersion = preparedQuery(db, cache, "browserPolicies.version", 1, (orgId: string) =>
    db.selectFrom("browser_policies").select("version").where("org_id", "=", orgId),
  );
  return {
    async get(orgId) {
      const row = await db.selectFrom("browser_policies").select(["policy", "version"]).where("org_id", "=", orgId).executeTakeFirst();
      return row === undefined ? null : toVersionedPolicy(row);
    },

    async version(orgId) {
      const [row] = await selectVersion(orgId);
      return row === undefined ? null : row.version;
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
