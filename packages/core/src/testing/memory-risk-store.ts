import type { EpochMs } from "../model.ts";
import type { PlatformFeatureCount, RiskStore } from "../ports.ts";
import { featureKey, type RiskObservation } from "../records/risk-observation.ts";
import type { RiskPolicy } from "../records/risk-policy.ts";
import type { RiskEvent } from "../records/risk-event.ts";
import type { MemoryTables } from "./memory-transactions.ts";

export function createMemoryRiskStore(tables: MemoryTables): RiskStore {
  const histories = tables.map<string, readonly RiskObservation[]>();
  const counts = tables.map<string, PlatformFeatureCount>();
  const events = tables.map<string, RiskEvent>();
  const policies = tables.map<string, RiskPolicy>();
  return {
    async history(userId, since, limit) {
      const rows = (histories.get(userId) ?? []).filter((row) => row.at >= since);
      return rows.slice(Math.max(0, rows.length - limit)).map((row) => structuredClone(row));
    },
    async signInFeatures(userId, since) {
      const times = new Map<string, number>();
      for (const row of histories.get(userId) ?? []) {
        if (row.at < since) continue;
        const features = featureKey(row);
        times.set(features, (times.get(features) ?? 0) + 1);
      }
      return [...times].map(([features, count]) => ({ features, times: count }));
    },
    async recordSignIn(userId, observation, forgetBefore: EpochMs, keep) {
      const rows = [...(histories.get(userId) ?? []), structuredClone(observation)]
        .filter((row) => row.at >= forgetBefore)
        // Stable: sign-ins of one millisecond stay in the order they were recorded.
        .sort((a, b) => a.at - b.at);
      histories.set(userId, rows.slice(Math.max(0, rows.length - keep)));
    },
    async countPlatform(levels) {
      for (const { key, parent } of levels) {
        const known = counts.get(key);
        counts.set(key, { count: (known?.count ?? 0) + 1, distinct: known?.distinct ?? 0 });
        if (known === undefined && parent !== null) {
          const above = counts.get(parent) ?? { count: 0, distinct: 0 };
          counts.set(parent, { ...above, distinct: above.distinct + 1 });
        }
      }
    },
    async platformCounts(keys) {
      const found = new Map<string, PlatformFeatureCount>();
      for (const key of keys) {
        const row = counts.get(key);
        if (row !== undefined) found.set(key, { ...row });
      }
      return found;
    },
    async appendEvent(event) {
      events.set(event.id, structuredClone(event));
    },
    async listEvents({ orgId, userId, since, limit }) {
      return [...events.values()]
        .filter(
          (event) =>
            (orgId === null || event.orgId === orgId) && (userId === undefined || event.userId === userId) && (since === undefined || event.at >= since),
        )
        .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map((event) => structuredClone(event));
    },
    async answerEvent(eventId, userId, answer) {
      const event = events.get(eventId);
      if (event === undefined || event.userId !== userId) return false;
      events.set(eventId, { ...event, answer: { ...answer } });
      return true;
    },
    async policy(orgId) {
      const policy = policies.get(orgId);
      return policy === undefined ? null : structuredClone(policy);
    },
    async putPolicy(orgId, policy) {
      policies.set(orgId, structuredClone(policy));
    },
  };
}
