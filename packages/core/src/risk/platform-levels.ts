import { createHash } from "node:crypto";
import type { PlatformFeatureCount, PlatformLevel } from "../ports.ts";
import { levelKey, type FeatureCountsView } from "./feature-counts.ts";
import { FEATURE_CHAINS, featureValues, type ChainName, type RiskObservation } from "../records/risk-observation.ts";

/**
 * A level key as the platform stores it: a level's key holds every value above it (a whole user-agent
 * string, an address), so it is hashed to a fixed 22 characters (128 bits): a row's size is bounded, and
 * the table names no address in clear.
 */
export function platformKey(key: string): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 22);
}

/** Every level of every chain of the observation, root first, hashed. */
export function platformLevels(observation: RiskObservation): PlatformLevel[] {
  const values = featureValues(observation);
  const levels: PlatformLevel[] = [];
  for (const chain of Object.keys(FEATURE_CHAINS) as ChainName[]) {
    let parent: string | null = null;
    for (let depth = 0; depth <= values[chain].length; depth++) {
      const key = platformKey(levelKey(chain, values[chain], depth));
      levels.push({ key, parent });
      parent = key;
    }
  }
  return levels;
}

/** The platform's counts as the score reads them, from the rows `RiskStore.platformCounts` returned. */
export function platformCountsView(rows: ReadonlyMap<string, PlatformFeatureCount>): FeatureCountsView {
  // The score reads each key several times: each is hashed once.
  const hashed = new Map<string, string>();
  const row = (key: string) => {
    let hash = hashed.get(key);
    if (hash === undefined) hashed.set(key, (hash = platformKey(key)));
    return rows.get(hash);
  };
  return { count: (key) => row(key)?.count ?? 0, distinct: (key) => row(key)?.distinct ?? 0 };
}
