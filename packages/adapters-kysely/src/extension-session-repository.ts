import type { ExtensionSessionRecord, ExtensionSessionStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, ExtensionSessionsTable } from "./schema.ts";

function toRecord(row: Selectable<ExtensionSessionsTable>): ExtensionSessionRecord {
  return {
    sessionId: row.session_id,
    orgId: row.org_id,
    userId: row.user_id,
    deviceId: row.device_id,
    extensionVersion: row.extension_version,
    policyVersion: fromDbBigint(row.policy_version),
    lastPollAt: fromDbBigint(row.last_poll_at),
  };
}

export function createExtensionSessionRepository(db: Kysely<Database>): ExtensionSessionStore {
  const newestFirst = (orgId: string) =>
    db.selectFrom("extension_sessions").selectAll().where("org_id", "=", orgId).orderBy("last_poll_at", "desc").orderBy("session_id", "asc");
  return {
    async recordPoll(record) {
      const changed = { extension_version: record.extensionVersion, policy_version: record.policyVersion, last_poll_at: record.lastPollAt };
      await db
        .insertInto("extension_sessions")
        .values({ session_id: record.sessionId, org_id: record.orgId, user_id: record.userId, device_id: record.deviceId, ...changed })
        .onConflict((conflict) => conflict.column("session_id").doUpdateSet(changed))
        .execute();
    },
    async listByOrg(orgId) {
      return (await newestFirst(orgId).execute()).map(toRecord);
    },
    async listByUser(orgId, userId) {
      return (await newestFirst(orgId).where("user_id", "=", userId).execute()).map(toRecord);
    },
  };
}
