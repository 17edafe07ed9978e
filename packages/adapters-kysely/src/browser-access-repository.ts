import type { BrowserAccessStore } from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { toVersionedPolicy } from "./browser-policy-repository.ts";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

/**
 * One SELECT per browser request: the active session by its access token hash, left-joined to the
 * membership of its user in the requested org and to that org's policy. Being one statement it reads
 * one snapshot on both dialects, and it is one round trip on PostgreSQL.
 */
export function createBrowserAccessRepository(db: Kysely<Database>, cache: PreparedQueryCache): BrowserAccessStore {
  const selectAccess = preparedQuery(db, cache, "browserAccess.resolve", 4, (accessTokenHash: string, orgId: string, knownPolicyVersion: number, now: number) =>
    db
      .selectFrom("sessions")
      .leftJoin("memberships", (join) => join.onRef("memberships.user_id", "=", "sessions.user_id").on("memberships.org_id", "=", orgId))
      .leftJoin("browser_policies", (join) => join.on("browser_policies.org_id", "=", orgId))
      .select((eb) => [
        "sessions.id as session_id",
        "sessions.user_id",
        "sessions.org_id as session_org_id",
        "memberships.user_id as member_user_id",
        "browser_policies.version as policy_version",
        // As in getIfChanged: the policy text only crosses the wire when the caller's copy is stale.
        eb
          .case()
          .when("browser_policies.version", "=", knownPolicyVersion)
          .then(sql<string | null>`null`)
          .else(eb.ref("browser_policies.policy"))
          .end()
          .as("policy"),
      ])
      .where("sessions.access_token_hash", "=", accessTokenHash)
      .where("sessions.revoked_at", "is", null)
      .where("sessions.access_expires_at", ">", now),
  );
  return {
    async resolve(accessTokenHash, orgId, knownPolicyVersion, now) {
      const [row] = await selectAccess(accessTokenHash, orgId, knownPolicyVersion, now);
      if (row === undefined) return null;
      const { policy_version: version, policy } = row;
      return {
        sessionId: row.session_id,
        userId: row.user_id,
        sessionOrgId: row.session_org_id,
        isMember: row.member_user_id !== null,
        policy: version === null ? null : policy === null ? "unchanged" : toVersionedPolicy({ policy, version }),
      };
    },
  };
}
