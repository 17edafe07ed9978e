import type { MemoryTables } from "./memory-transactions.ts";
import type { BrowserPolicyStore, OrgStore, VersionedBrowserPolicy } from "../ports.ts";

export function createBrowserPolicyStore(tables: MemoryTables, orgs: OrgStore): BrowserPolicyStore {
  const policies = tables.map<string, VersionedBrowserPolicy>();
  return {
    async get(orgId) {
      const stored = policies.get(orgId);
      return stored === undefined ? null : structuredClone(stored);
    },
    async membershipAndVersion(orgId, userId) {
      // findMembership reads before its first await, so both answers come from the same state.
      const version = policies.get(orgId)?.version ?? null;
      return { membership: await orgs.findMembership(orgId, userId), version };
    },
    async put(orgId, policy) {
      const stored = { policy: structuredClone(policy), version: (policies.get(orgId)?.version ?? 0) + 1 };
      policies.set(orgId, stored);
      return structuredClone(stored);
    },
  };
}
