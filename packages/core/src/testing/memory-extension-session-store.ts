import type { ExtensionSessionRecord } from "../records/extension-session.ts";
import type { ExtensionSessionStore } from "../ports.ts";
import type { MemoryTables } from "./memory-transactions.ts";

const newestFirst = (a: ExtensionSessionRecord, b: ExtensionSessionRecord): number =>
  b.lastPollAt - a.lastPollAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);

export function createExtensionSessionStore(tables: MemoryTables): ExtensionSessionStore {
  const records = tables.map<string, ExtensionSessionRecord>();
  const select = (keep: (record: ExtensionSessionRecord) => boolean): ExtensionSessionRecord[] =>
    [...records.values()]
      .filter(keep)
      .sort(newestFirst)
      .map((record) => ({ ...record }));
  return {
    async recordPoll(record) {
      records.set(record.sessionId, { ...record });
    },
    async listByOrg(orgId) {
      return select((record) => record.orgId === orgId);
    },
    async listByUser(orgId, userId) {
      return select((record) => record.orgId === orgId && record.userId === userId);
    },
  };
}
